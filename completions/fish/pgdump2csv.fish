complete -c pgdump2csv -s o -l output-dir -d 'Write one CSV per table into DIR (created if missing). File names encode every byte of the schema and table name outside [A-Za-z0-9_-] as %XX: `public.my%20table.csv`. A name longer than 200 bytes is cut between characters and ends in `~` and a 16-digit hash of the full name (which the manifest keeps)' -r -F
complete -c pgdump2csv -s t -l table -d 'Only tables matching PATTERN (`table` or `schema.table`; `*` and `?` wildcards; unquoted names fold to lower case, "Quoted" ones do not). Repeatable' -r
complete -c pgdump2csv -s T -l exclude-table -d 'Leave out tables matching PATTERN (same syntax as --table). Repeatable' -r
complete -c pgdump2csv -l null -d 'Write NULL as STRING instead of an unquoted empty field (e.g. \'\\N\'); a value equal to STRING is then quoted' -r
complete -c pgdump2csv -l level -d 'gzip level for --gzip, 1 (fast) to 9 (small)' -r
complete -c pgdump2csv -l schema -d 'Write every statement that is not table data (the DDL), in dump order, to FILE. It starts with its own `\\restrict` (fresh random key) and ends with `\\unrestrict`' -r -F
complete -c pgdump2csv -l post-data -d 'Write what comes after the data (primary keys, indexes, foreign keys, triggers, setval) to FILE instead of --schema, so tables can be loaded bare and indexed after. The dump\'s session settings are repeated at its top so it runs on its own, inside its own `\\restrict`/`\\unrestrict` pair' -r -F
complete -c pgdump2csv -l write-manifest -d 'Write a JSON manifest (format dumpshard-manifest, version 1) describing every table written: file, columns with types and NOT NULL, primary key, rows, bytes. The old spelling `--manifest` still works for this release, with a warning' -r -F
complete -c pgdump2csv -l manifest -d 'The old spelling of --write-manifest: deprecated, to be removed in the next release, because `--manifest` reads a manifest in every other dumpshard tool. Works, and warns' -r -F
complete -c pgdump2csv -s j -l jobs -d 'Worker threads: data is converted on N threads, and up to N tables of an archive read from a file (directory, custom or tar) are converted at once, each decompressed on a thread of its own; an archive from a pipe is read in one pass. Each table in flight holds about 25 MB of buffers [default: number of CPUs; at most 4 per CPU, 256 in all]' -r
complete -c pgdump2csv -l header -d 'Start every CSV with a header record of column names'
complete -c pgdump2csv -l gzip -d 'Compress the CSV files with gzip (`.csv.gz`)'
complete -c pgdump2csv -l no-dump-check -d 'Accept input without pg_dump\'s header and "dump complete" footer (hand-written SQL). Without it such input is rejected, which catches truncated dumps'
complete -c pgdump2csv -s q -l quiet -d 'No progress bar and no warnings on stderr (errors still print)'
complete -c pgdump2csv -s v -l verbose -d 'At the end, print one summary line on stderr, the same shape in every tool (see dumpshard(7)): `read SIZE, N records; wrote N tables, N records, SIZE; N dropped; SECS s, RATE MB/s`'
complete -c pgdump2csv -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pgdump2csv -s V -l version -d 'Print version'
