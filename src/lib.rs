//! dumpshard: shared library behind the `pgdump2csv`, `pksort`, `csvsplit` and `csvcheck` filters.
