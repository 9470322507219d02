"""Papers of the `decision` cluster; each subpackage holds one paper."""
