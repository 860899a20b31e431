import PushgateCore

// The `pushgate` tool: see docs/tool.md.
print("usage: pushgate <command> …")
