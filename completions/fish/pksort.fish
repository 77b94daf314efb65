complete -c pksort -s k -l key -d 'Key column, most significant first: `COLUMN[:TYPE][:desc]`. Repeat the option or separate specs with commas. COLUMN is a 1-based number or a name (from --header or the manifest). TYPE is int (any length), numeric, float, text (bytewise, the default), uuid, bool, date, timestamp or timestamptz; with a manifest it defaults to the column\'s type' -r
complete -c pksort -s m -l manifest -d 'A pgdump2csv manifest: key columns and types, the header and the NULL token come from the table\'s entry. (`-m` is --manifest in every dumpshard tool; GNU sort\'s `-m` is --merge here.)' -r -F
complete -c pksort -s t -l table -d 'The manifest table (`name` or `schema.name`); optional when the manifest has one table' -r
complete -c pksort -s S -l buffer-size -d 'Memory budget, e.g. 512M or 2G or 25%. Larger inputs are sorted in runs spilled to disk and merged. [default: half of the available memory]' -r
complete -c pksort -l temporary-directory -d 'Directory for the spilled runs. GNU sort\'s `-T DIR` still works for this release, with a warning: `-T` is --exclude-table in dumpshard. [default: $TMPDIR or /tmp]' -r -F
complete -c pksort -s T -d 'GNU sort\'s `-T DIR`: deprecated, to be removed in the next release, because `-T` is --exclude-table in dumpshard (as in pg_dump). Works as --temporary-directory and warns' -r -F
complete -c pksort -s j -l jobs -d 'Threads for sorting and key encoding, at most 4 per CPU (and 256). [default: all cores]' -r
complete -c pksort -s o -l output -d 'Write to FILE instead of standard output; it appears only when complete. A `.gz` name compresses' -r -F
complete -c pksort -l on-dup -d 'What to do with records whose keys are equal: error (stop, naming both records), keep all, or keep only the first or last in input order' -r -f -a "error\t'Stop with an error naming both records (a primary-key import would fail anyway)'
keep\t'Keep them all, in input order'
first\t'Keep the first in input order, drop the others'
last\t'Keep the last in input order, drop the others'"
complete -c pksort -l dups-out -d 'Write the dropped records (first/last) or all records of duplicate keys (keep) to FILE' -r -F
complete -c pksort -l null -d 'The NULL token: an unquoted field exactly STRING is NULL (as in csvsplit and csvcheck). [default: the manifest table\'s token, else the unquoted empty field]' -r
complete -c pksort -l nulls -d 'Allow NULL key values (see --null) and put them first or last; without this a NULL key is an error' -r -f -a "first\t'Before every value (also for descending keys)'
last\t'After every value (also for descending keys)'"
complete -c pksort -l batch-size -d 'Merge at most N runs at once (more are merged in several passes)' -r
complete -c pksort -l header -d 'The first record of each input is a header: it is written first, and names key columns'
complete -c pksort -s c -l check -d 'Only check that each input is sorted (and unique unless --on-dup keep); exit 1 naming the first offending record'
complete -c pksort -l merge -d 'The inputs are already sorted: only merge them (an unsorted input is an error). GNU sort\'s `-m`; in dumpshard `-m` is --manifest'
complete -c pksort -s q -l quiet -d 'No progress bar on a terminal (errors and the count of dropped duplicates still print)'
complete -c pksort -s v -l verbose -d 'At the end, print one summary line on stderr, the same shape in every tool (see dumpshard(7)): `read SIZE, N records; wrote N files, N records, SIZE; N dropped; SECS s, RATE MB/s`'
complete -c pksort -l force -d 'Replace output files that exist already. Without it, a run refuses (exit 2, before writing anything) an output file it did not create itself: the toolkit\'s one overwrite rule (dumpshard(7), FILES)'
complete -c pksort -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pksort -s V -l version -d 'Print version'
