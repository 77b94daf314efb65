complete -c csvload -s m -l manifest -d 'A manifest to load: pgdump2csv\'s (every table in it, or those of -t) or csvsplit\'s (one table\'s shards; name the table with -t). Repeatable' -r -F
complete -c csvload -s t -l table -d 'Load only this table (`name` or `schema.name`); repeatable. Names the target table of csvsplit manifests (then give exactly one)' -r
complete -c csvload -s j -l jobs -d 'Files loaded at once, one connection each (at most 64)' -r
complete -c csvload -l batch-rows -d 'Commit every N records (cut at record ends) as its own COPY and transaction; default: one file, one transaction (PostgreSQL), 1000 records (CockroachDB), 20000 (YugabyteDB), per --target-kind' -r
complete -c csvload -l journal -d 'The journal table of committed batches, created if missing' -r
complete -c csvload -l schema -d 'Run this SQL script before the data, statement by statement (pgdump2csv\'s schema.sql)' -r -F
complete -c csvload -l post-data -d 'Run this SQL script after all data (pgdump2csv\'s post.sql: indexes, constraints)' -r -F
complete -c csvload -l verify -d 'What verification compares: `count` (each table\'s rows, and a csvsplit key\'s min and max, with the manifests) or `content` (also every value: an order-independent digest of each table\'s records from the CSV files and read back from the target, compared per key bucket; a full read of both sides, `-j` tables at once)' -r -f -a "count\t'Row counts (and a csvsplit key\'s min and max) against the manifests'
content\t'Counts, then a digest of every value, from the CSV files and from the target'"
complete -c csvload -l verify-diff -d 'With `--verify content`: print up to N differing records of each differing table from both sides (a second read of the differing key buckets); 0: name the buckets only' -r
complete -c csvload -l retries -d 'Tries again, on a new connection, a batch whose connection broke or that the server failed with a retryable SQLSTATE (40001, 40P01, 57P01-57P03, class 08), at most N times in a row, waiting 0.5 s, 1 s, 2 s ... (at most 30 s) before each; each retry is said on stderr. The journal keeps it exactly once: a batch whose COMMIT went unanswered is looked up in the journal before it is sent again. 0: stop at the first' -r
complete -c csvload -l target-kind -d 'The kind of server loaded: postgresql, cockroachdb or yugabytedb. Default: read from `SELECT version()` (CockroachDB\'s starts with `CockroachDB`, YugabyteDB\'s contains `-YB-`, anything else is PostgreSQL); given and different from that, a warning says so and the given kind is used. It sets the default --batch-rows, the session settings (YugabyteDB: yb_default_copy_from_rows_per_transaction = 0 and yb_disable_transactional_writes = off), whether advisory locks are taken (not on CockroachDB, whose are stubs) and the COPY option syntax (CockroachDB: `WITH CSV NULL`)' -r -f -a "postgresql\t'PostgreSQL (and servers that answer `version()` as it does)'
cockroachdb\t'CockroachDB: `version()` starts with `CockroachDB`'
yugabytedb\t'YugabyteDB (YSQL): `version()` contains `-YB-`'"
complete -c csvload -l truncate -d 'Empty a table (and forget its journal rows) when it holds rows the journal does not account for, instead of refusing it. A table whose rows are all journaled resumes'
complete -c csvload -l append -d 'Load into a table even when it holds rows the journal does not account for; they are added to the expected row count'
complete -c csvload -l verify-only -d 'Only compare each table\'s row count with the manifests (for data loaded any other way); load nothing'
complete -c csvload -l keep-going -d 'When the server refuses a row, load the other tables to the end (default: every job stops after its current batch)'
complete -c csvload -s q -l quiet -d 'Print no progress bar and no summary; only errors and verification differences'
complete -c csvload -s v -l verbose -d 'The summary, printed anyway unless -q (accepted as in every dumpshard tool). It ends with the line every tool prints (see dumpshard(7)): `read SIZE, N records; wrote N tables, N records, SIZE; N refused; SECS s, RATE MB/s` (refused: files with rows the server refused)'
complete -c csvload -s h -l help -d 'Print help (see more with \'--help\')'
complete -c csvload -s V -l version -d 'Print version'
