complete -c csvcheck -s m -l manifest -d 'Take the schema from a pgdump2csv manifest (--table names the table; optional when the manifest has one), with the enum labels and domain bases it carries. With --ddl too (pgdump2csv\'s --write-schema file), the manifest gives the columns and --ddl the enums and domains their types name (needed for a manifest from before they were in it)' -r -F
complete -c csvcheck -l ddl -d 'Take the schema from a pg_dump schema file or a whole plain dump (compressed or not; COPY data is skipped): CREATE TABLE, CREATE TYPE ... AS ENUM, CREATE DOMAIN and ALTER TABLE ... PRIMARY KEY statements (with --table). The column order is the COPY (or INSERT) column list when the file has one; for an INHERITS child that CREATE TABLE alone cannot order, the run is refused unless --header gives the order' -r -F
complete -c csvcheck -s t -l table -d 'The table to check against, `name` or `schema.name` (with --manifest or --ddl)' -r
complete -c csvcheck -l columns -d 'Give the columns inline: `id:int8!,name:text,price:numeric(10,2)`; `!` marks NOT NULL. Without any schema option only the structure is checked, with the first record\'s field count as the width' -r
complete -c csvcheck -l key -d 'Primary-key column, most significant first: `COLUMN[:TYPE][:desc]`, as `-k` in pksort and csvsplit. Repeat the option or separate specs with commas. Overrides the schema\'s key; with --columns or no schema, the only way to get a key check. COLUMN is a name (from the schema or header) or a 1-based number. TYPE says how keys compare (int, numeric, float, text, uuid, bool, date, timestamp, timestamptz; default: the column\'s type, else text) and its values are checked as that type' -r
complete -c csvcheck -l null -d 'The NULL token: an unquoted field equal to it is NULL (default: unquoted empty, or the manifest\'s token)' -r
complete -c csvcheck -l max-memory -d 'Memory for the duplicate-key check on unsorted input (e.g. 512M, 2G, 25%); beyond it the check stops and says to use `pksort --check`' -r
complete -c csvcheck -l report -d 'Write the JSON report to FILE' -r -F
complete -c csvcheck -l bad-rows -d 'Write the bad records to FILE, byte for byte (gzip if FILE ends in .gz)' -r -F
complete -c csvcheck -l bad-rows-reasons -d 'Write one CSV line per problem (file,record,line,byte,column,check,message) to FILE' -r -F
complete -c csvcheck -l max-errors -d 'Stop after N bad records (0 = no limit)' -r
complete -c csvcheck -l max-error-rate -d 'Tolerate bad records up to this share of all records (e.g. 0.001 or 0.1%): exit 0 when within it. Bad records still go to --bad-rows' -r
complete -c csvcheck -l examples -d 'Examples per check in the summary' -r
complete -c csvcheck -s j -l jobs -d 'Worker threads, at most 4 per CPU (and 256) (default: all cores)' -r
complete -c csvcheck -l no-key-check -d 'Skip the primary-key check'
complete -c csvcheck -l header -d 'The first record of each file is a header (also taken from the manifest). It is checked against the column names and copied once to --filter and --bad-rows outputs; where --ddl cannot tell the column order, the header gives it'
complete -c csvcheck -l sorted -d 'The input is sorted by primary key: check order too, in constant memory. Keys compare exactly as in `pksort` (typed: numbers as numbers, timestamps as instants, text bytewise), so `pksort` output passes'
complete -c csvcheck -l json -d 'Write the report as JSON on standard output (or to --report)'
complete -c csvcheck -l filter -d 'Write the good records to standard output, byte for byte'
complete -c csvcheck -s q -l quiet -d 'Print nothing on stderr unless something is wrong (no progress bar, no summary)'
complete -c csvcheck -s v -l verbose -d 'The summary line, printed anyway unless -q (accepted as in every dumpshard tool). Its shape, as in every tool (see dumpshard(7)): `read SIZE, N records; wrote N files, N records, SIZE; N bad; SECS s, RATE MB/s`'
complete -c csvcheck -l force -d 'Replace output files that exist already. Without it, a run refuses (exit 2, before writing anything) an output file it did not create itself: the toolkit\'s one overwrite rule (dumpshard(7), FILES)'
complete -c csvcheck -s h -l help -d 'Print help (see more with \'--help\')'
complete -c csvcheck -s V -l version -d 'Print version'
