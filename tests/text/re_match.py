"""Python's `re.match` on every pattern and name of a table: reads
{"patterns": [...], "names": [...]} as JSON on stdin, prints one JSON list with, per
pattern, {"error": message or null, "matches": [bool per name] or null}.

    python tests/text/re_match.py < table.json
"""

import json
import re
import sys
import warnings


def main():
    table = json.load(sys.stdin)
    out = []
    for pattern in table["patterns"]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # FutureWarning on `[[` and `&&`
                compiled = re.compile(pattern)
        except re.error as e:
            out.append({"error": str(e), "matches": None})
            continue
        out.append(
            {"error": None, "matches": [bool(compiled.match(n)) for n in table["names"]]}
        )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
