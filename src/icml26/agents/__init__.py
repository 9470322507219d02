"""Papers of the `agents` cluster; each subpackage holds one paper."""
