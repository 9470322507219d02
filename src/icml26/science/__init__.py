"""Papers of the `science` cluster; each subpackage holds one paper."""
