"""Papers of the `llm` cluster; each subpackage holds one paper."""
