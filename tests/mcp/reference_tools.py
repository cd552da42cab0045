"""Call the reference's MCP tools (`scope_profiler.mcp_server.tools`) for `tests/mcp.rs`.

usage: reference_tools.py CALLS.json   -> one JSON list on stdout, an entry per call:
                                          {"ok": result} or {"error": message}
       reference_tools.py --schemas    -> {tool name: inputSchema} of the reference's server

CALLS.json is a list of {"tool": name, "arguments": {...}}. Floats that are not finite
become null, as JSON has no NaN or Infinity.
"""

import asyncio
import json
import math
import sys

from scope_profiler.mcp_server import tools


def clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def call(entry):
    try:
        return {"ok": clean(getattr(tools, entry["tool"])(**entry["arguments"]))}
    except tools.ToolError as exc:
        return {"error": str(exc)}


def schemas():
    from scope_profiler.mcp_server.server import create_server

    listed = asyncio.run(create_server().list_tools())
    return {tool.name: tool.inputSchema for tool in listed}


def main():
    if sys.argv[1] == "--schemas":
        json.dump(schemas(), sys.stdout)
        return
    with open(sys.argv[1]) as f:
        calls = json.load(f)
    json.dump([call(entry) for entry in calls], sys.stdout)


if __name__ == "__main__":
    main()
