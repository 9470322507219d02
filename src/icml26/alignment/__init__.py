"""Papers of the `alignment` cluster; each subpackage holds one paper."""
