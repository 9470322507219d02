"""Papers of the `vision` cluster; each subpackage holds one paper."""
