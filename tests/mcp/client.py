"""Drive `sp mcp` with the official MCP client SDK (the `mcp` package), for `tests/mcp.rs`.

usage: client.py SP_BINARY PROFILE   -> one JSON object on stdout: what the session saw
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError


async def session(binary, profile):
    seen = {}
    params = StdioServerParameters(command=binary, args=["mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            seen["server"] = init.serverInfo.name
            seen["protocol"] = init.protocolVersion
            seen["tools"] = [t.name for t in (await s.list_tools()).tools]
            result = await s.call_tool("inspect_profile", {"file_path": profile, "top_n": 1})
            seen["inspect"] = {"isError": result.isError, "result": result.structuredContent}
            result = await s.call_tool("inspect_profile", {"file_path": profile + ".missing"})
            seen["missing"] = {"isError": result.isError, "text": result.content[0].text}
            try:
                await s.call_tool("no_such_tool", {})
                seen["unknown_tool"] = "answered"
            except McpError as exc:
                seen["unknown_tool"] = exc.error.code
            await s.send_ping()
            seen["ping"] = True
    return seen


print(json.dumps(asyncio.run(session(sys.argv[1], sys.argv[2]))))
