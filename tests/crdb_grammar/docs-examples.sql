# The SQL examples of cockroachdb/docs of forms pg_dump writes: collected by
# collect_examples.py from commit 79e9a5d03f4b01203131e71af49a6f2eaae9ff63, src/current/vNN.N/*.md.
# Each statement follows a line `-- PAGE RELEASE...`: the page it was first found on
# and every release whose pages have it.
-- admission-control.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_transaction_quality_of_service=critical;
-- admission-control.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_transaction_quality_of_service=background;
-- admission-control.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_transaction_quality_of_service=regular;
-- admission-control.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET copy_transaction_quality_of_service=critical;
-- alembic.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE accounts ADD COLUMN overdrawn BOOLEAN AS (
  CASE
    WHEN balance < 0 THEN True
    ELSE False
  END
) STORED;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT CREATE ON DATABASE defaultdb TO cockroachlabs;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER DEFAULT PRIVILEGES FOR ROLE cockroachlabs GRANT SELECT ON TABLES TO max;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE albums (
        id UUID PRIMARY KEY,
        title STRING,
        length DECIMAL,
        tracklist JSONB
);
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER DEFAULT PRIVILEGES FOR ROLE cockroachlabs REVOKE SELECT ON TABLES FROM max;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tracks (
        id UUID PRIMARY KEY,
        album_id UUID,
        title STRING,
        length DECIMAL
);
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE SELECT ON TABLE albums FROM max;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER DEFAULT PRIVILEGES FOR ALL ROLES GRANT SELECT ON TABLES TO public;
-- alter-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE discographies (
        id UUID PRIMARY KEY,
        artist STRING,
        total_length DECIMAL
);
-- alter-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER FUNCTION sq OWNER TO max;
-- alter-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION add(a INT, b INT) RETURNS INT IMMUTABLE LEAKPROOF LANGUAGE SQL AS 'SELECT $1 + $2';
-- alter-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER FUNCTION add(a INT, b INT) RENAME TO sum;
-- alter-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA IF NOT EXISTS cockroach_labs;
-- alter-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER FUNCTION public.sum SET SCHEMA cockroach_labs;
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX vehicles@vehicles_auto_index_fk_city_ref_users CONFIGURE ZONE USING range_min_bytes = 0, range_max_bytes = 90000, gc.ttlseconds = 89999, num_replicas = 4;
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX vehicles@vehicles_auto_index_fk_city_ref_users CONFIGURE ZONE DISCARD;
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX students_by_list@name_idx PARTITION BY LIST (country) (
    PARTITION north_america VALUES IN ('CA','US'),
    PARTITION australia VALUES IN ('AU','NZ'),
    PARTITION DEFAULT VALUES IN (default)
  );
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX students_by_range@name_idx PARTITION BY RANGE (expected_graduation_date) (
    PARTITION graduated VALUES FROM (MINVALUE) TO ('2017-08-15'),
    PARTITION current VALUES FROM ('2017-08-15') TO (MAXVALUE)
  );
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX students@name_idx PARTITION BY LIST (country) (
    PARTITION australia VALUES IN ('AU','NZ') PARTITION BY RANGE (expected_graduation_date) (
      PARTITION graduated_au VALUES FROM (MINVALUE) TO ('2017-08-15'),
      PARTITION current_au VALUES FROM ('2017-08-15') TO (MAXVALUE)
    ),
    PARTITION north_america VALUES IN ('US','CA') PARTITION BY RANGE (expected_graduation_date) (
      PARTITION graduated_us VALUES FROM (MINVALUE) TO ('2017-08-15'),
      PARTITION current_us VALUES FROM ('2017-08-15') TO (MAXVALUE)
    )
  );
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX students_by_range@name_idx PARTITION BY RANGE (expected_graduation_date) (
    PARTITION graduated VALUES FROM (MINVALUE) TO ('2018-08-15'),
    PARTITION current VALUES FROM ('2018-08-15') TO (MAXVALUE)
  );
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX students@name_idx PARTITION BY NOTHING;
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX on users(name);
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX users@name_idx RENAME TO users_name_idx;
-- alter-index.md 24.1 24.3 25.2 25.3 25.4 26.1 26.2
ALTER INDEX rides@rides_pkey SCATTER;
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX revenue_idx ON rides(revenue);
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX rides@revenue_idx SPLIT AT VALUES (25.00), (50.00), (75.00);
-- alter-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX rides@revenue_idx UNSPLIT AT VALUES (25.00), (50.00), (75.00);
-- alter-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER PROCEDURE delete_earliest_histories RENAME TO delete_histories;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA org_one AUTHORIZATION max;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA org_one;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SCHEMA org_one RENAME TO org_two;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT max TO root;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT CREATE ON DATABASE defaultdb TO max;
-- alter-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SCHEMA org_one OWNER TO max;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE customer_seq;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SEQUENCE customer_seq INCREMENT 2;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE even_numbers INCREMENT 2 START 2;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SEQUENCE even_numbers RENAME TO even_sequence;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SEQUENCE even_sequence RENAME TO mydb.even_sequence;
-- alter-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER SEQUENCE even_numbers SET SCHEMA cockroach_labs;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN active BOOL;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN location STRING, ADD COLUMN currency STRING;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN interest DECIMAL NOT NULL DEFAULT (DECIMAL '1.3');
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN address STRING UNIQUE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (
  id INT PRIMARY KEY,
  name STRING
);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN cust_number INT REFERENCES customers(id);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN more_names STRING COLLATE en;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN location1 STRING CREATE FAMILY f1;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN location2 STRING FAMILY f1;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN new_name STRING CREATE IF NOT EXISTS FAMILY f2;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE bank ADD COLUMN last_updated TIMESTAMPTZ DEFAULT now() ON UPDATE now();
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD CONSTRAINT id_name_unique UNIQUE (id, name);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides ADD CONSTRAINT check_revenue_positive CHECK (revenue >= 0);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD COLUMN is_owner STRING;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD CONSTRAINT check_is_owner CHECK (is_owner IN ('yes', 'no', 'unknown'));
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE vehicles ADD CONSTRAINT users_fk FOREIGN KEY (city, owner_id) REFERENCES users (city, id) ON DELETE CASCADE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD COLUMN email STRING;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD CONSTRAINT user_email_unique UNIQUE (email);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
        id UUID NOT NULL DEFAULT gen_random_uuid(),
        city STRING NOT NULL,
        name STRING NULL,
        address STRING NULL,
        credit_card STRING NULL,
        CONSTRAINT users_pkey PRIMARY KEY (city ASC, id ASC)
);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE subscriptions ALTER COLUMN newsletter SET DEFAULT true;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE subscriptions ALTER COLUMN newsletter DROP DEFAULT;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE subscriptions ALTER COLUMN newsletter SET NOT NULL;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE subscriptions ALTER COLUMN newsletter DROP NOT NULL;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE customer ALTER c_balance TYPE DECIMAL(14,2);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE customer ALTER c_discount TYPE STRING USING ((c_discount*100)::DECIMAL(4,2)::STRING || ' percent');
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ALTER COLUMN credit_card SET NOT VISIBLE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ALTER COLUMN credit_card SET VISIBLE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
  name STRING PRIMARY KEY,
  email STRING
);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD COLUMN id UUID NOT NULL DEFAULT gen_random_uuid();
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ALTER PRIMARY KEY USING COLUMNS (id);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users CONFIGURE ZONE USING range_min_bytes = 0, range_max_bytes = 90000, gc.ttlseconds = 89999, num_replicas = 4;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET sql_safe_updates = false;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users DROP COLUMN credit_card;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW expensive_rides AS SELECT id, city FROM rides WHERE revenue > 90;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides DROP COLUMN revenue CASCADE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX start_end_idx ON rides(start_time, end_time);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides DROP COLUMN start_time;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE vehicles DROP CONSTRAINT fk_city_ref_users;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE customers EXPERIMENTAL_AUDIT SET READ WRITE;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE customers EXPERIMENTAL_AUDIT SET OFF;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE promo_codes OWNER TO max;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students_by_list PARTITION BY LIST (country) (
    PARTITION north_america VALUES IN ('CA','US'),
    PARTITION australia VALUES IN ('AU','NZ'),
    PARTITION DEFAULT VALUES IN (default)
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students_by_range PARTITION BY RANGE (expected_graduation_date) (
    PARTITION graduated VALUES FROM (MINVALUE) TO ('2017-08-15'),
    PARTITION current VALUES FROM ('2017-08-15') TO (MAXVALUE)
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students PARTITION BY LIST (country) (
    PARTITION australia VALUES IN ('AU','NZ') PARTITION BY RANGE (expected_graduation_date) (
      PARTITION graduated_au VALUES FROM (MINVALUE) TO ('2017-08-15'),
      PARTITION current_au VALUES FROM ('2017-08-15') TO (MAXVALUE)
    ),
    PARTITION north_america VALUES IN ('US','CA') PARTITION BY RANGE (expected_graduation_date) (
      PARTITION graduated_us VALUES FROM (MINVALUE) TO ('2017-08-15'),
      PARTITION current_us VALUES FROM ('2017-08-15') TO (MAXVALUE)
    )
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students_by_range PARTITION BY RANGE (expected_graduation_date) (
    PARTITION graduated VALUES FROM (MINVALUE) TO ('2018-08-15'),
    PARTITION current VALUES FROM ('2018-08-15') TO (MAXVALUE)
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students PARTITION BY NOTHING;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
    id INT PRIMARY KEY,
    first_name STRING,
    family_name STRING
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users RENAME COLUMN family_name TO last_name;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
    id INT PRIMARY KEY,
    name STRING
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users
    RENAME COLUMN name TO last_name,
    ADD COLUMN first_name STRING,
    ADD COLUMN name STRING
      AS (CONCAT(first_name, ' ', last_name)) STORED;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE logon (
    login_id INT PRIMARY KEY,
    customer_id INT NOT NULL,
    sales_id INT,
    UNIQUE (customer_id, sales_id)
  );
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE logon RENAME CONSTRAINT logon_customer_id_sales_id_key TO unique_customer_id_sales_id;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users RENAME TO riders;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE IF EXISTS customers RENAME TO clients;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE movr.user_promo_codes SET (exclude_data_from_backup = true);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE movr.user_promo_codes SET (exclude_data_from_backup = false);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE ttl_test RESET (ttl);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE foo SET LOCALITY REGIONAL BY ROW AS bar;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides ADD COLUMN region crdb_internal_region AS (
  CASE
    WHEN city IN ('new york', 'boston', 'washington dc', 'chicago', 'detroit', 'minneapolis') THEN 'us-east-1'
    WHEN city IN ('san francisco', 'seattle', 'los angeles') THEN 'us-west-1'
    WHEN city IN ('amsterdam', 'paris', 'rome') THEN 'eu-west-1'
  END
) STORED;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET enable_auto_rehoming = on;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE promo_codes SET SCHEMA cockroach_labs;
-- alter-table.md 24.1 24.3 25.2 25.3 25.4 26.1 26.2
ALTER TABLE movr.users SCATTER;
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users SPLIT AT VALUES ('chicago'), ('new york'), ('seattle');
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE drivers (
    id UUID DEFAULT gen_random_uuid(),
    city STRING,
    name STRING,
    dl STRING DEFAULT left(md5(random()::text),8) UNIQUE CHECK (LENGTH(dl) < 9),
    address STRING,
    CONSTRAINT "primary" PRIMARY KEY (city ASC, dl ASC)
);
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE drivers SPLIT AT VALUES ('new york', '3'), ('new york', '7'), ('chicago', '3'), ('chicago', '7'), ('seattle', '3'), ('seattle', '7');
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE vehicles SPLIT AT VALUES ('chicago'), ('new york'), ('seattle') WITH EXPIRATION '2022-01-10 23:30:00+00:00';
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE drivers UNSPLIT AT VALUES ('new york', '3'), ('new york', '7'), ('chicago', '3'), ('chicago', '7'), ('seattle', '3'), ('seattle', '7');
-- alter-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE vehicles VALIDATE CONSTRAINT users_fk;
-- alter-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE status AS ENUM ('open', 'closed', 'inactive');
-- alter-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TYPE status ADD VALUE 'pending';
-- alter-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TYPE status RENAME VALUE 'open' TO 'active';
-- alter-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TYPE status RENAME TO account_status;
-- alter-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TYPE account_status DROP VALUE 'inactive';
-- alter-view.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW money_rides (id, revenue) AS SELECT id, revenue FROM rides WHERE revenue > 50;
-- alter-view.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER VIEW money_rides RENAME TO expensive_rides;
-- alter-view.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER VIEW expensive_rides SET SCHEMA cockroach_labs;
-- alter-virtual-cluster.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SYSTEM MANAGEVIRTUALCLUSTER TO user;
-- apply-statement-performance-rules.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (start_time) storing (rider_id);
-- apply-statement-performance-rules.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (rider_id);
-- array.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE a (b STRING[]);
-- array.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE c (d INT ARRAY);
-- array.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t (a INT ARRAY, b STRING);
-- array.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE x (a UUID DEFAULT gen_random_uuid() PRIMARY KEY, b INT[]);
-- as-of-system-time.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE foo.bar (id INT PRIMARY KEY);
-- bit.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE b (x BIT, y BIT(3), z VARBIT, w VARBIT(3));
-- bool.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE bool (a INT PRIMARY KEY, b BOOL, c BOOLEAN);
-- build-a-spring-app-with-cockroachdb-mybatis.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON DATABASE bank TO maxroach;
-- bulk-update-data.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides ADD COLUMN discounted BOOL DEFAULT false;
-- bytes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE bytes (a INT PRIMARY KEY, b BYTES);
-- cdc-queries.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION doubleRevenue(r int)
RETURNS INT IMMUTABLE LEAKPROOF LANGUAGE SQL AS
$$ SELECT 2 * r $$;
-- changefeed-for.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON TABLE example_table TO user;
-- changefeed-messages.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE office_dogs (
     id INT PRIMARY KEY,
     name STRING);
-- changefeed-messages.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE office_dogs ADD COLUMN likes_treats BOOL DEFAULT TRUE;
-- changefeeds-on-tables-with-column-families.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE office_dogs (
   id INT PRIMARY KEY,
   name STRING,
   owner STRING,
   FAMILY primary (id, name),
   FAMILY secondary (owner)
 );
-- check.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE inventories (
    product_id        INT NOT NULL,
    warehouse_id      INT NOT NULL,
    quantity_on_hand  INT NOT NULL CHECK (quantity_on_hand > 0),
    PRIMARY KEY (product_id, warehouse_id)
  );
-- check.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE inventories (
    product_id        INT NOT NULL,
    warehouse_id      INT NOT NULL,
    quantity_on_hand  INT NOT NULL,
    PRIMARY KEY (product_id, warehouse_id),
    CONSTRAINT ok_to_supply CHECK (quantity_on_hand > 0 AND warehouse_id BETWEEN 100 AND 200)
  );
-- cockroach-demo.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE drivers (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    city STRING NOT NULL,
    name STRING,
    dl STRING UNIQUE,
    address STRING
);
-- cockroach-sqlfmt.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE animals (
        id
                INT
                PRIMARY KEY
                DEFAULT unique_rowid(),
        name STRING
);
-- cockroach-start.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE charges (
  zone STRING NOT NULL DEFAULT crdb_internal.locality_value('zone'),
  id INT PRIMARY KEY NOT NULL
);
-- cockroachdb-feature-availability.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE t EXPERIMENTAL_AUDIT SET READ WRITE;
-- cockroachdb-feature-availability.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET tracing = on;
-- cockroachdb-feature-availability.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET tracing = off;
-- collate.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE de_names (name STRING COLLATE de PRIMARY KEY);
-- collate.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE nocase_strings (greeting STRING COLLATE "en-US-u-ks-level2");
-- column-families.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE test (
    id INT PRIMARY KEY,
    last_accessed TIMESTAMP,
    data BYTES,
    FAMILY f1 (id, last_accessed),
    FAMILY f2 (data)
);
-- column-level-encryption.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS users (
    user_id UUID DEFAULT uuid_generate_v4() PRIMARY KEY,
    name VARCHAR(255),
    encrypted_ssn BYTES,
    ssn_iv BYTES
);
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON DATABASE movr IS 'This database contains information about users, vehicles, and rides.';
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON TABLE vehicles IS 'This table contains information about vehicles registered with MovR.';
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON COLUMN users.credit_card IS 'This column contains user payment information.';
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users(name);
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON INDEX users_name_idx IS 'This index improves performance on queries that filter by name.';
-- comment-on.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON DATABASE movr IS NULL;
-- common-table-expressions.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE test (n INT);
-- common-table-expressions.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON test (n);
-- configure-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS kv (k INT, v INT);
-- configure-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE kv CONFIGURE ZONE USING num_replicas = 5;
-- configure-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE test.kv CONFIGURE ZONE USING num_replicas = 7;
-- configure-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE test.kv CONFIGURE ZONE DISCARD;
-- configure-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE t CONFIGURE ZONE USING range_min_bytes = 0, range_max_bytes = 90000, gc.ttlseconds = 89999, num_replicas = 5, constraints = '[-region=west]';
-- constraints.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE foo (a INT CONSTRAINT another_name PRIMARY KEY);
-- constraints.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE bar (a INT, b INT, CONSTRAINT yet_another_name PRIMARY KEY (a,b));
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
    id INT PRIMARY KEY,
    balance DECIMAL)
WITH (sql_stats_automatic_collection_enabled = false);
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
    id INT PRIMARY KEY,
    balance DECIMAL);
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE accounts
SET (sql_stats_automatic_collection_enabled = false);
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
    id INT PRIMARY KEY,
    balance DECIMAL)
WITH (sql_stats_forecasts_enabled = false);
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE accounts
SET (sql_stats_forecasts_enabled = false);
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET plan_cache_mode = auto;
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET reorder_joins_limit = 0;
-- cost-based-optimizer.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE abc (
  a INT,
  b INT,
  INDEX (a),
  INDEX (b)
);
-- create-changefeed.md 24.1
ALTER TABLE watched_table SET (schema_locked = true);
-- create-changefeed.md 24.1
ALTER TABLE watched_table SET (schema_locked = false);
-- create-external-connection.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SYSTEM EXTERNALCONNECTION TO user;
-- create-external-connection.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT USAGE ON EXTERNAL CONNECTION backup_bucket TO user;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION sq(a INT) RETURNS INT AS 'SELECT a*a' LANGUAGE SQL;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION num_users() RETURNS INT AS 'SELECT count(*) FROM users' LANGUAGE SQL;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION update_code(
  code_name VARCHAR,
  new_rules JSONB
  ) 
  RETURNS promo_codes AS $$
    UPDATE promo_codes SET rules = new_rules
    WHERE code = code_name
    RETURNING *;
  $$ LANGUAGE SQL;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION total_euro_revenue() RETURNS DECIMAL LANGUAGE SQL AS $$
  SELECT SUM(revenue) FROM rides WHERE city IN ('paris', 'rome', 'amsterdam')
$$;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION available_vehicles() RETURNS SETOF vehicles LANGUAGE SQL AS $$
  SELECT * FROM vehicles WHERE status = 'available'
$$;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION last_rider() RETURNS RECORD LANGUAGE SQL AS $$
  SELECT * FROM users WHERE id = (
    SELECT rider_id FROM rides WHERE end_time = (SELECT max(end_time) FROM rides)
  )
$$;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION double_triple(INOUT double INT, OUT triple INT) AS 
  $$
  BEGIN
    double := double * 2;
    triple := double * 3;
  END;
  $$ LANGUAGE PLpgSQL;
-- create-function.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION f(input_value INT)
  RETURNS RECORD 
  AS $$
  BEGIN
      RETURN double_triple(input_value);
  END;
  $$ LANGUAGE PLpgSQL;
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users (name);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users (name, city);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE UNIQUE INDEX ON users (name, id);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users ADD CONSTRAINT users_name_id_key UNIQUE (name, id);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON promo_codes USING GIN (rules);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INVERTED INDEX ON promo_codes (rules);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides USING GIN (vehicle_city gin_trgm_ops);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INVERTED INDEX ON rides(vehicle_city gin_trgm_ops);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geom_idx_1 ON some_spatial_table USING GIST(geom);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geom_idx_2
  ON some_spatial_table USING GIST(geom)
  WITH (s2_max_cells = 20, s2_max_level = 12, s2_level_mod = 3);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users (city) STORING (name);
-- create-index.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users (city DESC, name);
-- create-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE proc() LANGUAGE PLpgSQL AS $$
  DECLARE
    v comp := ROW(1, 'foo');
  BEGIN
    RAISE NOTICE '%', v;
  END
  $$;
-- create-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE double_triple(INOUT double INT, OUT triple INT) AS
  $$
  BEGIN
    double := double * 2;
    triple := double * 3;
  END;
  $$ LANGUAGE PLpgSQL;
-- create-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE p(double_input INT) AS
  $$
  DECLARE
    triple_result INT;
  BEGIN
    CALL double_triple(double_input, triple_result);    
    RAISE NOTICE 'Doubled value: %', double_input;
    RAISE NOTICE 'Tripled value: %', triple_result;
  END
  $$ LANGUAGE PLpgSQL;
-- create-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE proc(a INT, b INT) AS 
  $$
  DECLARE
    result INT;
  BEGIN
    IF a > b THEN
      RAISE NOTICE 'Condition met: a is greater than b';
    ELSE
      RAISE NOTICE 'Condition not met: a is not greater than b';
    END IF;
  END;
  $$ LANGUAGE PLpgSQL;
-- create-procedure.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE arr_var() AS 
  $$
  DECLARE
    x INT[] := ARRAY[1, 2, 3, 4, 5];
    n INT;
    i INT := 1;
  BEGIN
    n := array_length(x, 1);
    WHILE i <= n LOOP
      RAISE NOTICE '%: %', i, x[i];
      i := i + 1;
    END LOOP;
  END
  $$ LANGUAGE PLpgSQL;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA IF NOT EXISTS org_one;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA IF NOT EXISTS org_two;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE org_one.employees (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        name STRING,
        desk_no INT UNIQUE
);
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE org_two.employees (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        name STRING,
        desk_no INT UNIQUE
);
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA org_two AUTHORIZATION max;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA AUTHORIZATION max;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT root TO max;
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE max.accounts (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        name STRING,
        balance DECIMAL
);
-- create-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.accounts (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        name STRING,
        balance DECIMAL
);
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET experimental_enable_temp_tables=on;
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TEMP SEQUENCE temp_seq START 1 INCREMENT 1;
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (
    uid UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    rownum INT DEFAULT nextval('customer_seq'),
    name STRING
);
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SELECT setval('customer_seq', 5, false);
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE desc_customer_list START -1 INCREMENT -2;
-- create-sequence.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE customer_seq_cached CACHE 10;
-- create-sequence.md 24.1 24.3 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE customer_seq_node_cached PER NODE CACHE 10;
-- create-statistics.md 24.1 24.3
SET enable_create_stats_using_extremes = true;
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny AS SELECT * FROM users WHERE city = 'new york';
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny_names (user_id, user_name) AS SELECT id, name FROM users WHERE city = 'new york';
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE drivers (id, city, name) AS VALUES (gen_random_uuid(), 'new york', 'Harry Potter'), (gen_random_uuid(), 'seattle', 'Evelyn Martin');
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny_copy AS TABLE users_ny;
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny_pk (id, city, name PRIMARY KEY) AS SELECT id, city, name FROM users WHERE city = 'new york';
-- create-table-as.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny_alt (id PRIMARY KEY FAMILY ids, name, city FAMILY locs, address, credit_card FAMILY payments) AS SELECT id, name, city, address, credit_card FROM users WHERE city = 'new york';
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE table1 (a INT PRIMARY KEY, b INT NOT NULL DEFAULT 3 CHECK (b > 0), INDEX(b));
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE table2 (LIKE table1 INCLUDING ALL EXCLUDING CONSTRAINTS, c INT, INDEX(b,c));
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
        id UUID PRIMARY KEY,
        city STRING,
        name STRING,
        address STRING,
        credit_card STRING,
        dl STRING
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles (
        id UUID NOT NULL,
        city STRING NOT NULL,
        type STRING,
        owner_id UUID,
        creation_time TIMESTAMP,
        status STRING,
        current_location STRING,
        ext JSONB,
        CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC),
        INDEX index_status (status),
        INVERTED INDEX ix_vehicle_ext (ext),
        FAMILY "primary" (id, city, type, owner_id, creation_time, status, current_location, ext)
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        city STRING,
        name STRING,
        address STRING,
        credit_card STRING,
        dl STRING UNIQUE CHECK (LENGTH(dl) < 8)
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles (
        id UUID NOT NULL DEFAULT gen_random_uuid(),
        city STRING NOT NULL,
        type STRING,
        owner_id UUID REFERENCES users(id) ON DELETE CASCADE,
        creation_time TIMESTAMP,
        status STRING,
        current_location STRING,
        ext JSONB,
        CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC),
        INDEX vehicles_auto_index_fk_city_ref_users (city ASC, owner_id ASC),
        INVERTED INDEX ix_vehicle_ext (ext),
        FAMILY "primary" (id, city, type, owner_id, creation_time, status, current_location, ext)
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
        id UUID PRIMARY KEY,
        city STRING,
        name STRING,
        address STRING,
        credit_card STRING,
        dl STRING UNIQUE CHECK (LENGTH(dl) < 8)
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles2 (
        LIKE vehicles INCLUDING ALL
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles3 (
        LIKE vehicles INCLUDING DEFAULTS INCLUDING INDEXES,
        CONSTRAINT fk_owner_id_ref_users FOREIGN KEY (owner_id) REFERENCES public.users(id) ON DELETE CASCADE
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE promo_codes (
    code STRING PRIMARY KEY,
    description STRING,
    creation_time TIMESTAMP,
    expiration_time TIMESTAMP,
    rules JSONB)
    LOCALITY GLOBAL;
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users_ny (
    id UUID PRIMARY KEY,
    name STRING,
    address STRING)
    LOCALITY REGIONAL BY TABLE IN "us-east1";
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles (
    id UUID PRIMARY KEY,
    type STRING,
    city STRING,
    owner_id UUID,
    creation_time TIMESTAMP,
    status STRING,
    current_location STRING,
    ext JSONB)
    LOCALITY REGIONAL BY ROW;
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE vehicles (
    id UUID PRIMARY KEY,
    type STRING,
    city STRING,
    region crdb_internal_region AS (
      CASE
        WHEN city IN ('new york', 'boston', 'washington dc', 'chicago', 'detroit', 'minneapolis') THEN 'us-east1'
        WHEN city IN ('san francisco', 'seattle', 'los angeles') THEN 'us-west1'
        WHEN city IN ('amsterdam', 'paris', 'rome') THEN 'europe-west1'
      END) STORED,
    owner_id UUID,
    creation_time TIMESTAMP,
    status STRING,
    current_location STRING,
    ext JSONB)
    LOCALITY REGIONAL BY ROW AS region;
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE bank (
    id UUID DEFAULT gen_random_uuid() PRIMARY KEY,
    order_index INT8 UNIQUE,
    balance INT8,
    payload STRING,
    numerical INT8 GENERATED BY DEFAULT AS IDENTITY (INCREMENT 1 MINVALUE 0 START 0)
);
-- create-table.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE promo_codes (
    code VARCHAR NOT NULL,
    description VARCHAR NULL,
    creation_time TIMESTAMP NULL,
    expiration_time TIMESTAMP NULL,
    rules JSONB NULL,
    CONSTRAINT promo_codes_pkey PRIMARY KEY (code ASC)
  )
WITH (exclude_data_from_backup = true);
-- create-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE IF NOT EXISTS status AS ENUM ('open', 'closed', 'inactive');
-- create-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS accounts (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        balance DECIMAL,
        status status
);
-- create-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE IF NOT EXISTS my_point AS (x INT, y INT);
-- create-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS points (
    id UUID DEFAULT gen_random_uuid(), p my_point,
    CONSTRAINT my_point_xcheck
        CHECK (((p).x >= 0) AND ((p).x <= 10000)),
    CONSTRAINT my_point_ycheck
        CHECK (((p).y >= 0) AND ((p).y <= 10000))
);
-- create-view.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW startrek.quotes_per_season (season, quotes)
  AS SELECT startrek.episodes.season, count(*)
  FROM startrek.quotes
  JOIN startrek.episodes
  ON startrek.quotes.episode = startrek.episodes.id
  GROUP BY startrek.episodes.season;
-- create-view.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE VIEW startrek.quotes_per_season (season, quotes)
  AS SELECT startrek.episodes.season, count(*)
  FROM startrek.quotes
  JOIN startrek.episodes
  ON startrek.quotes.episode = startrek.episodes.id
  GROUP BY startrek.episodes.season
  ORDER BY startrek.episodes.season;
-- data-domiciling.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET enable_multiregion_placement_policy=on;
-- date.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE dates (a DATE PRIMARY KEY, b INT);
-- decimal.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE decimals (a DECIMAL PRIMARY KEY, b DECIMAL(10,5), c NUMERIC);
-- default-value.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE inventories (
    product_id        INT,
    warehouse_id      INT,
    quantity_on_hand  INT DEFAULT 100,
    PRIMARY KEY (product_id, warehouse_id)
  );
-- demo-json-support.md 24.1 24.3 25.1 25.2 25.3 25.4
SET DATABASE = jsonb_test;
-- demo-json-support.md 24.1 24.3 25.1 25.2 25.3 25.4
GRANT ALL ON DATABASE jsonb_test TO maxroach;
-- demo-json-support.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE programming (
    id UUID DEFAULT uuid_v4()::UUID PRIMARY KEY,
    posts JSONB
  );
-- demo-json-support.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE INVERTED INDEX ON programming(posts);
-- drop-external-connection.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT DROP ON EXTERNAL CONNECTION backup_bucket TO user;
-- drop-owned-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS max_kv (k INT, v INT);
-- drop-owned-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS root_kv (k INT, v INT);
-- drop-owned-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL on root_kv TO maxroach;
-- drop-role.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE INSERT ON documents FROM dev_ops;
-- drop-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA org_two;
-- drop-schema.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE org_two.users (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        city STRING,
        name STRING,
        address STRING
);
-- drop-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE weekday AS ENUM ('monday', 'tuesday', 'wednesday', 'thursday', 'friday');
-- drop-type.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE weekend AS ENUM ('sunday', 'saturday');
-- drop-user.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (k int, v int);
-- drop-user.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TABLE customers TO max;
-- drop-user.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE CREATE,INSERT,UPDATE ON customers FROM max;
-- drop-user.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE ALL ON TABLE public.customers FROM max;
-- enum.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        balance DECIMAL,
        status status
);
-- enum.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE inaccessible AS ENUM ('closed', 'inactive');
-- enum.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE notifications (
        id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
        status inaccessible,
        message STRING
);
-- explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE UNIQUE INDEX ON users(city, id, name);
-- explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE kv (k INT PRIMARY KEY, v INT);
-- explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET disallow_full_table_scans=on;
-- explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX v ON kv (v);
-- explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS kv (k INT PRIMARY KEY, v INT);
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX index_name ON table_name (expression(column_name));
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t (i INT, b BOOL, s STRING, j JSON);
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t (lower(s), b) WHERE i > 0;
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE UNIQUE INDEX ON t (lower(s), b) WHERE i > 0;
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INVERTED INDEX ON t (lower(s), i, j) WHERE b;
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
  profile_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  last_updated TIMESTAMP DEFAULT now(),
  user_profile JSONB
);
-- expression-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX timestamp_idx ON users (parse_timestamp(user_profile->>'birthdate'));
-- float.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE floats (a FLOAT PRIMARY KEY, b REAL, c DOUBLE PRECISION);
-- foreign-key.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS orders (
    id INT PRIMARY KEY,
    customer INT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    orderTotal DECIMAL(9,2),
    INDEX (customer)
  );
-- foreign-key.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE packages (
    customer INT,
    "order" INT,
    id INT,
    address STRING(50),
    delivered BOOL,
    delivery_date DATE,
    PRIMARY KEY (customer, "order", id),
    CONSTRAINT fk_order FOREIGN KEY (customer, "order") REFERENCES orders
    );
-- full-text-search.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_text_search_config = swedish;
-- full-text-search.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t (a STRING);
-- full-text-search.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN (to_tsvector('english', a));
-- full-text-search.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE t ADD COLUMN b TSVECTOR 
  AS (to_tsvector('english', a)) STORED;
-- full-text-search.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN (b);
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON DATABASE movr TO max WITH GRANT OPTION;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT DELETE ON TABLE rides TO max;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON * TO max;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER DEFAULT PRIVILEGES FOR ALL ROLES GRANT ALL ON TABLES TO max;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS usertable(x INT);
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SYSTEM MODIFYCLUSTERSETTING TO max;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON TABLE vehicles TO public;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON SCHEMA cockroach_labs TO max WITH GRANT OPTION;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TYPE status TO max WITH GRANT OPTION;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ZONECONFIG ON TABLE rides TO max;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT developer TO abbey;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT developer TO abbey WITH ADMIN OPTION;
-- grant.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT UPDATE ON TABLE rides TO max WITH GRANT OPTION;
-- hash-sharded-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE events (
    product_id INT8,
    owner UUID,
    serial_number VARCHAR,
    event_id UUID,
    ts TIMESTAMP,
    data JSONB,
    PRIMARY KEY (product_id, owner, serial_number, ts, event_id),
    INDEX (ts) USING HASH WITH (bucket_count = 20)
);
-- import-performance-best-practices.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX idx1 ON table1;
-- import-performance-best-practices.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX idx2 ON table1;
-- import-performance-best-practices.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX idx3 ON table1;
-- import-performance-best-practices.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (id UUID PRIMARY KEY, name TEXT, INDEX name_idx(name));
-- import-performance-best-practices.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE contacts (email STRING PRIMARY KEY, first_name TEXT, last_name TEXT);
-- indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tbl (col1 INT, col2 INT, col3 INT, INDEX (col1, col2));
-- indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tbl (col1 INT, col2 INT, col3 INT, INDEX (col1, col2) STORING (col3));
-- inet.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE computers (
    ip INET PRIMARY KEY,
    user_email STRING,
    registration_date DATE
  );
-- insert-data.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE IF NOT EXISTS accounts (id INT PRIMARY KEY, balance INT);
-- insert.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE drivers (
    id UUID DEFAULT gen_random_uuid(),
    city STRING,
    name STRING,
    dl STRING UNIQUE CHECK (LENGTH(dl) < 8),
    address STRING,
    CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC)
);
-- int.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ints (a INT PRIMARY KEY, b SMALLINT);
-- interval.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE intervals (a INT PRIMARY KEY, b INTERVAL);
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE test (
  id INT,
  data JSONB,
  INVERTED INDEX idx_data(data) WHERE id > 10
);
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
  profile_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  user_type STRING,
  user_profile JSONB,
  INVERTED INDEX (user_type, user_profile)
);
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
    profile_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    last_updated TIMESTAMP DEFAULT now(),
    user_profile JSONB,
    INVERTED INDEX user_details (user_profile)
  );
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE students (
    student_id  UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    marks INT ARRAY
  );
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INVERTED INDEX student_marks ON students (marks);
-- inverted-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INVERTED INDEX idx_online_users ON users(user_profile) WHERE user_profile -> 'online' = 'true';
-- jsonb.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (
    profile_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    last_updated TIMESTAMP DEFAULT now(),
    user_profile JSONB
  );
-- jsonb.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE commodity (id varchar(10), data jsonb);
-- jsonb.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE events (
  raw JSONB,
  event_created TIMESTAMP AS (parse_timestamp(raw->'event'->>'created')) VIRTUAL
);
-- known-limitations.md 24.1 24.3 25.1 25.2 25.3
CREATE TABLE t (x INT);
-- known-limitations.md 24.1 24.3 25.1 25.2 25.3
CREATE SEQUENCE s;
-- known-limitations.md 24.1 24.3 25.1 25.2 25.3
CREATE TABLE t1 (
  k INT PRIMARY KEY,
  geom GEOMETRY
);
-- known-limitations.md 24.1 24.3 25.1 25.2 25.3
CREATE TABLE t2 (
  k INT PRIMARY KEY,
  geom GEOMETRY,
  INVERTED INDEX geom_idx (geom)
) LOCALITY REGIONAL BY ROW;
-- learn-cockroachdb-sql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE drivers (
    id UUID NOT NULL,
    city STRING NOT NULL,
    name STRING,
    dl STRING UNIQUE,
    address STRING,
    CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC)
);
-- learn-cockroachdb-sql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS drivers (
    id UUID NOT NULL,
    city STRING NOT NULL,
    name STRING,
    dl STRING UNIQUE,
    address STRING,
    CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC)
);
-- learn-cockroachdb-sql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX name_idx ON users (name DESC);
-- learn-cockroachdb-sql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS drivers (
    id UUID NOT NULL,
    city STRING NOT NULL,
    name STRING,
    dl STRING,
    address STRING,
    INDEX name_idx (name),
    CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC)
);
-- map-sql-activity-to-app.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = movr_app;
-- migrate-from-avro.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE employees (
    registration_dttm STRING,
    id INT,
    first_name STRING,
    last_name STRING,
    email STRING,
    gender STRING,
    ip_address STRING,
    cc INT,
    country STRING,
    birthdate STRING,
    salary FLOAT,
    title STRING,
    comments STRING
        );
-- migrate-from-csv.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE employees (
  emp_no INT PRIMARY KEY,
  birth_date DATE NOT NULL,
  first_name STRING NOT NULL,
  last_name STRING NOT NULL,
  gender STRING NOT NULL,
  hire_date DATE NOT NULL
      );
-- migrate-from-geojson.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE underground_storage_tank (
  wkb_geometry GEOMETRY(POINT) NULL,
  "TankID" INT8 NULL,
  "FacilityID" INT8 NULL,
  "Name" VARCHAR NULL,
  "TankStatus" VARCHAR NULL,
  "TankCapacity" INT8 NULL,
  "YearInstalled" VARCHAR NULL,
  "LastInspDate" TIMESTAMPTZ NULL,
  "Address" VARCHAR NULL,
  "Town" VARCHAR NULL,
  "State" VARCHAR NULL,
  "Zip" VARCHAR NULL,
  "DecLat" FLOAT8 NULL,
  "DecLong" FLOAT8 NULL,
  "DocLink" VARCHAR NULL,
  "ActorName" VARCHAR NULL,
  "PermitExpires" TIMESTAMPTZ NULL
);
-- migrate-from-geopackage.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE busstops (
    geom GEOMETRY(POINT) NULL,
    site_ID INT8 NULL,
    site_on VARCHAR NULL,
    site_at VARCHAR NULL,
    corn_desc VARCHAR NULL,
    Completion INT8 NULL,
    Improvemen VARCHAR NULL,
    Improvem_1 VARCHAR NULL,
    Public_Com VARCHAR NULL,
    Project_Na VARCHAR NULL
);
-- migrate-from-oracle.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (
  customer_id       DECIMAL
                    NOT NULL
                    PRIMARY KEY,
  cust_first_name   VARCHAR(40) NOT NULL,
  cust_last_name    VARCHAR(40) NOT NULL,
  nls_language      VARCHAR(3),
  nls_territory     VARCHAR(30),
  credit_limit      DECIMAL(9,2),
  cust_email        VARCHAR(100),
  account_mgr_id    DECIMAL,
  customer_since    DATE,
  customer_class    VARCHAR(40),
  suggestions       VARCHAR(40),
  dob               DATE,
  mailshot          VARCHAR(1),
  partner_mailshot  VARCHAR(1),
  preferred_address DECIMAL,
  preferred_card    DECIMAL,
  INDEX cust_email_ix (cust_email),
  INDEX cust_dob_ix (dob),
  INDEX cust_account_manager_ix (
      account_mgr_id
  )
 );
-- migrate-from-shapefiles.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tornadoes (
    wkb_geometry GEOMETRY(POINT) NULL,
    om NUMERIC NULL,
    yr NUMERIC NULL,
    mo NUMERIC NULL,
    dy NUMERIC NULL,
    date VARCHAR NULL,
    time VARCHAR NULL,
    tz NUMERIC NULL,
    st VARCHAR NULL,
    stf NUMERIC NULL,
    stn NUMERIC NULL,
    mag NUMERIC NULL,
    inj NUMERIC NULL,
    fat NUMERIC NULL,
    loss NUMERIC NULL,
    closs NUMERIC NULL,
    slat NUMERIC NULL,
    slon NUMERIC NULL,
    elat NUMERIC NULL,
    elon NUMERIC NULL,
    len NUMERIC NULL,
    wid NUMERIC NULL,
    fc NUMERIC NULL
);
-- migrate-to-multiregion-sql.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE postal_codes SET LOCALITY GLOBAL;
-- monitoring-and-alerting.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users SET LOCALITY REGIONAL BY TABLE IN "europe-west1";
-- not-null.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS customers (
    customer_id INT         PRIMARY KEY,
    cust_name   STRING(30)  NULL,
    cust_email  STRING(100) NOT NULL
  );
-- null-handling.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t1(
  a INT,
  b INT,
  c INT
);
-- null-handling.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t2(a INT, b INT UNIQUE);
-- null-handling.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE products (id STRING PRIMARY KEY, price INT NOT NULL CHECK (price > 0), discount INT, CHECK (discount <= price));
-- online-schema-changes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET autocommit_before_ddl = on;
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE a(a INT);
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ab(a INT, b INT);
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE kv(k INT PRIMARY KEY, v INT);
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ab(a INT, b INT, PRIMARY KEY (b DESC, a ASC));
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE kv(k INT PRIMARY KEY, v INT, INDEX v_idx(v));
-- order-by.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ab(a INT, b INT, INDEX b_idx (b DESC, a ASC));
-- partial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t (a, b) WHERE c > 5;
-- partial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE UNIQUE INDEX ON t (a, b) WHERE d = 'x';
-- partial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (city, revenue) WHERE revenue > 90;
-- partial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (city, revenue) WHERE end_time IS NOT NULL;
-- partial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE UNIQUE INDEX ON users (name) WHERE city='new york';
-- partitioning.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE students (
    id INT DEFAULT unique_rowid(),
    name STRING,
    email STRING,
    country STRING,
    expected_graduation_date DATE,
    PRIMARY KEY (country, id));
-- partitioning.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE students_by_range (
   id INT DEFAULT unique_rowid(),
   name STRING,
   email STRING,
   country STRING,
   expected_graduation_date DATE,
   PRIMARY KEY (expected_graduation_date, id))
   PARTITION BY RANGE (expected_graduation_date)
      (PARTITION graduated VALUES FROM (MINVALUE) TO ('2017-08-15'),
      PARTITION current VALUES FROM ('2017-08-15') TO (MAXVALUE));
-- partitioning.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE students (
    id INT DEFAULT unique_rowid(),
    name STRING,
    email STRING,
    country STRING,
    expected_graduation_date DATE,
    PRIMARY KEY (country, expected_graduation_date, id))
    PARTITION BY LIST (country)(
        PARTITION australia VALUES IN ('AU','NZ') PARTITION BY RANGE (expected_graduation_date)(PARTITION graduated_au VALUES FROM (MINVALUE) TO ('2017-08-15'), PARTITION current_au VALUES FROM ('2017-08-15') TO (MAXVALUE)),
        PARTITION north_america VALUES IN ('US','CA') PARTITION BY RANGE (expected_graduation_date)(PARTITION graduated_us VALUES FROM (MINVALUE) TO ('2017-08-15'), PARTITION current_us VALUES FROM ('2017-08-15') TO (MAXVALUE))
    );
-- partitioning.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE students_by_range PARTITION BY RANGE (expected_graduation_date) (
    PARTITION graduated VALUES FROM (MINVALUE) TO ('2018-08-15'),
    PARTITION current VALUES FROM ('2018-08-15') TO (MAXVALUE));
-- performance-best-practices-overview.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE posts (
    username STRING,
    post_timestamp TIMESTAMP,
    post_id INT,
    post_content STRING,
    CONSTRAINT posts_pk PRIMARY KEY(username, post_timestamp)
);
-- performance-best-practices-overview.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE X (
	ID1 INT,
	ID2 INT,
	ID3 INT DEFAULT 1,
	PRIMARY KEY (ID1,ID2)
  );
-- performance-best-practices-overview.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE X (
	ID1 INT,
	ID2 INT,
	ID3 INT DEFAULT unique_rowid(),
	PRIMARY KEY (ID1,ID2)
  );
-- performance-best-practices-overview.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
	id INT,
	customer STRING,
	address STRING,
	balance INT
	nominee STRING
	);
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE PROCEDURE name(parameters)
  LANGUAGE PLpgSQL
  AS $$
  [ DECLARE
	declarations ]
  BEGIN
	statements
  END
  $$;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE p(x INT) AS $$
	DECLARE
	    i INT;
	BEGIN
	    INSERT INTO t (col) VALUES (x) RETURNING col INTO i;
	    RAISE NOTICE 'New Row: %', i;
	END 
$$ LANGUAGE PLpgSQL;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION f() RETURNS INT AS $$
	DECLARE
		i INT;
	BEGIN
		SELECT max(col) INTO i FROM t;
		RETURN i;
	END
$$ LANGUAGE PLpgSQL;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE get_rides(rides_cursor REFCURSOR) AS $$
  BEGIN
    OPEN rides_cursor FOR SELECT * FROM movr.rides;
  END
  $$ LANGUAGE PLpgSQL;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE raise_time() AS $$
  BEGIN
    RAISE NOTICE 'current timestamp: %', now()
	USING HINT = 'Call this procedure again for a different result';
  END
  $$ LANGUAGE PLpgSQL;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE PROCEDURE p() LANGUAGE PLpgSQL AS
  $$
  BEGIN
    COMMIT;
    SET TRANSACTION PRIORITY HIGH;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    RAISE NOTICE '%', current_setting('transaction_isolation');
    RAISE NOTICE '%', current_setting('transaction_priority');
  END
  $$;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE output_one(OUT value INT) AS
  $$
  BEGIN
    value := 1;
  END
  $$ LANGUAGE PLpgSQL;
-- plpgsql.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE output() AS
  $$
  DECLARE
    output_value INT;
  BEGIN
    CALL output_one(output_value);
    RAISE NOTICE 'Output value: %', output_value;
  END
  $$ LANGUAGE PLpgSQL;
-- primary-key.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders (
    order_id        UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    order_date      TIMESTAMP NOT NULL,
    order_mode      STRING(8),
    customer_id     INT,
    order_status    INT
  );
-- primary-key.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS inventories (
    product_id        INT,
    warehouse_id      INT,
    quantity_on_hand  INT NOT NULL,
    PRIMARY KEY (product_id, warehouse_id)
  );
-- query-behavior-troubleshooting.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.nodes (
	id VARCHAR(60) NOT NULL,
	ampuuid UUID NULL,
	organization VARCHAR(60) NULL,
	created TIMESTAMPTZ NULL DEFAULT now():::TIMESTAMPTZ,
	disabled BOOL NOT NULL DEFAULT false,
	lastseen TIMESTAMPTZ NULL DEFAULT now():::TIMESTAMPTZ,
	os STRING NOT NULL,
	arch STRING NOT NULL,
	autotags JSONB NULL,
	version STRING NOT NULL DEFAULT '':::STRING,
	clone BOOL NOT NULL DEFAULT false,
	cloneof VARCHAR(60) NOT NULL DEFAULT '':::STRING,
	endpoint_type STRING NOT NULL DEFAULT 'amp':::STRING,
	ip INET NULL,
	osqueryversion STRING NOT NULL DEFAULT '':::STRING,
	CONSTRAINT "primary" PRIMARY KEY (id ASC),
	INDEX nodes_organization_ampuuid (organization ASC, ampuuid ASC),
	INDEX nodes_created_asc_organization (created ASC, organization ASC),
	INDEX nodes_created_desc_organization (created DESC, organization ASC),
	INDEX nodes_organization_os_version (organization ASC, os ASC, version ASC),
	INDEX nodes_organization_version (organization ASC, version ASC),
	INDEX nodes_lastseen_organization_storing (lastseen ASC, organization ASC) STORING (os, version),
	FAMILY "primary" (id, ampuuid, organization, created, disabled, lastseen, os, arch, autotags, version, clone, cloneof, endpoint_type, ip, osqueryversion)
);
-- query-behavior-troubleshooting.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX "nodes_lastseen_organization_os_version" (lastseen, organization, os, version);
-- query-spatial-data.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX tornado_geom_idx ON tornadoes USING GIST (geom);
-- reassign-owned.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT CREATE ON DATABASE movr TO cockroachlabs;
-- reassign-owned.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users OWNER TO cockroachlabs;
-- reassign-owned.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE vehicles OWNER TO cockroachlabs;
-- reassign-owned.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE rides OWNER TO cockroachlabs;
-- reassign-owned.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT CREATE ON DATABASE movr TO movrlabs;
-- refresh.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE MATERIALIZED VIEW overdrawn_accounts
  AS SELECT id, balance
  FROM bank
  WHERE balance < 0;
-- reset-vars.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET extra_float_digits = -10;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT CREATE ON DATABASE movr TO max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE CREATE ON DATABASE movr FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TABLE rides TO max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE ALL ON TABLE rides FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TABLE rides, users TO max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE ALL ON movr.public.* FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE SYSTEM MODIFYCLUSTERSETTING FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA cockroach_labs;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON SCHEMA cockroach_labs TO max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE CREATE ON SCHEMA cockroach_labs FROM max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE status AS ENUM ('available', 'unavailable');
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TYPE status TO max;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE developer FROM abbey;
-- revoke.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
REVOKE ADMIN OPTION FOR developer FROM abbey;
-- role-based-audit-logging.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT test_role to test_user;
-- role-based-audit-logging.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT another_role to test_user;
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ttl_test_per_row (
  id UUID PRIMARY KEY default gen_random_uuid(),
  description TEXT,
  expired_at TIMESTAMPTZ NOT NULL DEFAULT now() + '30 days'
) WITH (ttl_expiration_expression = 'expired_at', ttl_job_cron = '@daily');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ttl_test_per_table (
  id UUID PRIMARY KEY default gen_random_uuid(),
  description TEXT,
  inserted_at TIMESTAMPTZ default current_timestamp()
) WITH (ttl_expire_after = '3 months', ttl_job_cron = '@daily');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ttl_test_ttl_expiration_expression (
  id INT PRIMARY KEY,
  expire_at TIMESTAMPTZ
) WITH (ttl_expiration_expression = 'expire_at');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE events_using_date (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  description TEXT,
  start_date DATE DEFAULT now() NOT NULL,
  end_date DATE NOT NULL
) WITH (
  ttl_expiration_expression = $$(end_date::TIMESTAMPTZ + '30 days')$$
);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE events_using_timestamptz (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  description TEXT,
  start_date TIMESTAMPTZ DEFAULT now() NOT NULL,
  end_date TIMESTAMPTZ NOT NULL
) WITH (
  ttl_expiration_expression = $$(end_date + '30 days')$$
);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE events (
  id UUID PRIMARY KEY default gen_random_uuid(),
  description TEXT,
  inserted_at TIMESTAMPTZ default current_timestamp()
) WITH (ttl_expire_after = '3 months', ttl_job_cron = '@daily');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events_using_date SET (ttl_expiration_expression = $$(end_date::TIMESTAMPTZ + '90 days')$$);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tbl (
  id UUID PRIMARY KEY default gen_random_uuid(),
  value TEXT
) WITH (ttl_expire_after = '3 weeks', ttl_job_cron = '0 */4 * * *');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE tbl SET (ttl_job_cron = '@weekly');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events SET (ttl_pause = 'on');
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events RESET (ttl_job_cron);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events RESET (ttl);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events RESET (ttl_expire_after);
-- row-level-ttl.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE events_using_date RESET (ttl_expiration_expression);
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX type_available_idx ON movr.vehicles (type, available);
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX type_available_idx ON movr.vehicles (type, available) STORING (last_location);
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING UNIQUE,
    CONSTRAINT "primary" PRIMARY KEY (first_name, last_name)
  );
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE movr.max_schema.vtype AS ENUM ('bike', 'scooter', 'skateboard');
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE movr.max_schema.vehicles (
      id UUID DEFAULT gen_random_uuid() PRIMARY KEY,
      type movr.max_schema.vtype,
      creation_time TIMESTAMPTZ DEFAULT now(),
      available BOOL,
      last_location STRING
  );
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX type_available_idx ON movr.max_schema.vehicles (type, available) STORING (last_location);
-- schema-design-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE movr.max_schema.rides (
      id UUID DEFAULT gen_random_uuid() PRIMARY KEY,
      vehicle_id UUID REFERENCES movr.max_schema.vehicles(id),
      start_address STRING,
      end_address STRING,
      start_time TIMESTAMPTZ DEFAULT now(),
      end_time TIMESTAMPTZ
  );
-- schema-design-schema.md 24.1 24.3 25.1 25.2 25.3 25.4
GRANT CREATE ON DATABASE movr TO abbey;
-- schema-design-schema.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE SCHEMA max_schema AUTHORIZATION max;
-- schema-design-schema.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE SCHEMA abbey_schema AUTHORIZATION abbey;
-- schema-design-schema.md 24.1 24.3 25.1 25.2 25.3 25.4
GRANT USAGE ON SCHEMA max_schema TO abbey;
-- schema-design-schema.md 24.1 24.3 25.1 25.2 25.3 25.4
GRANT USAGE ON SCHEMA abbey_schema TO max;
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
);
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING
);
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.vehicles (
      id UUID,
      type STRING,
      creation_time TIMESTAMPTZ,
      available BOOL,
      last_location STRING
  );
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.vehicles (
      id UUID,
      type movr.max_schema.vtype,
      creation_time TIMESTAMPTZ,
      available BOOL,
      last_location STRING
  );
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING,
    CONSTRAINT "primary" PRIMARY KEY (first_name, last_name)
);
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.vehicles (
      id UUID DEFAULT gen_random_uuid() PRIMARY KEY,
      type movr.max_schema.vtype,
      creation_time TIMESTAMPTZ,
      available BOOL,
      last_location STRING
  );
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.abbey_schema.user_promo_codes (
    code STRING,
    user_email STRING REFERENCES movr.max_schema.users(email),
    valid BOOL,
    CONSTRAINT "primary" PRIMARY KEY (code, user_email)
  );
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING UNIQUE,
    CONSTRAINT "primary" PRIMARY KEY (first_name, last_name)
);
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING UNIQUE NOT NULL,
    CONSTRAINT "primary" PRIMARY KEY (first_name, last_name)
);
-- schema-design-table.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE TABLE movr.max_schema.users (
    first_name STRING,
    last_name STRING,
    email STRING UNIQUE NOT NULL,
    CONSTRAINT "primary" PRIMARY KEY (first_name, last_name)
  );
-- schema-design-update.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE IF EXISTS movr.max_schema.users ADD COLUMN username STRING;
-- schema-design-update.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE IF EXISTS movr.max_schema.users ALTER PRIMARY KEY USING COLUMNS (username, email);
-- schema-design-update.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE IF EXISTS movr.max_schema.users
  ADD COLUMN username STRING NOT NULL,
  ALTER COLUMN email SET NOT NULL;
-- schema-design-update.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE IF EXISTS movr.max_schema.users SET SCHEMA abbey_schema;
-- schema-design-update.md 24.1 24.3 25.1 25.2 25.3 25.4
ALTER TABLE IF EXISTS movr.abbey_schema.users OWNER TO abbey;
-- selection-queries.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE employee_copy AS TABLE employee;
-- serial.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE serial (a SERIAL PRIMARY KEY, b STRING, c BOOL);
-- set-vars.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = "movr app";
-- set-vars.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET search_path = pg_catalog,public;
-- set-vars.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET search_path = DEFAULT;
-- set-vars.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET timezone = '+3';
-- show-constraints.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders (
    id INT PRIMARY KEY,
    date TIMESTAMP NOT NULL,
    priority INT DEFAULT 1,
    customer_id INT UNIQUE,
    status STRING DEFAULT 'open',
    CHECK (priority BETWEEN 1 AND 5),
    CHECK (status in ('open', 'in progress', 'done', 'cancelled')),
    FAMILY (id, date, priority, customer_id, status)
);
-- show-create.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE public.users ALTER COLUMN credit_card SET NOT VISIBLE;
-- show-create.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW user_view (city, name) AS SELECT city, name FROM users;
-- show-create.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON TABLE users IS 'This table contains information about users.';
-- show-create.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE users SET LOCALITY REGIONAL BY ROW;
-- show-create.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION num_users() RETURNS INT AS 'SELECT count(*) from users' LANGUAGE SQL;
-- show-databases.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON DATABASE movr IS 'This database holds information about users, vehicles, and rides.';
-- show-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SCHEMA test;
-- show-default-privileges.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER DEFAULT PRIVILEGES IN SCHEMA test GRANT SELECT ON TABLES TO max;
-- show-full-table-scans.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (revenue);
-- show-grants.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON TABLE users TO max WITH GRANT OPTION;
-- show-grants.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT moderator TO max;
-- show-sequences.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE sequence_test;
-- show-system-grants.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SYSTEM ALL TO max WITH GRANT OPTION;
-- show-zone-configurations.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER INDEX vehicles@vehicles_auto_index_fk_city_ref_users CONFIGURE ZONE USING num_replicas = 5, gc.ttlseconds = 100000;
-- simulate-a-multi-region-cluster-on-localhost.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE bank.accounts (id INT PRIMARY KEY, balance DECIMAL);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE tmp_viz (id INT8, geom GEOMETRY);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geom_idx_1 ON geo_table1 USING GIST(geom) WITH (s2_level_mod=3);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geom_idx_2 ON geo_table2 USING GIST(geom) WITH (geometry_min_x=0, s2_max_level=15)
CREATE INDEX geom_idx_3 ON geo_table3 USING GIST(geom) WITH (s2_max_level=10)
CREATE INDEX geom_idx_4 ON geo_table4 USING GIST(geom) WITH (geometry_min_x=0, s2_max_level=15);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.geo_table (
   id INT8 NOT NULL,
   geog GEOGRAPHY(GEOMETRY,4326) NULL,
   geom GEOMETRY(GEOMETRY,3857) NULL,
   CONSTRAINT "primary" PRIMARY KEY (id ASC),
   INVERTED INDEX geom_idx_1 (geom) WITH (s2_max_level=15, geometry_min_x=0),
   INVERTED INDEX geom_idx_2 (geom) WITH (geometry_min_x=0),
   INVERTED INDEX geom_idx_3 (geom) WITH (s2_max_level=10),
   INVERTED INDEX geom_idx_4 (geom),
   INVERTED INDEX geog_idx_1 (geog) WITH (s2_level_mod=2),
   INVERTED INDEX geog_idx_2 (geog),
   FAMILY fam_0_geog (geog),
   FAMILY fam_1_geom (geom),
   FAMILY fam_2_id (id)
);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geom_idx
  ON some_spatial_table USING GIST(geom)
  WITH (s2_max_cells = 20, s2_max_level = 12, s2_level_mod = 3,
        geometry_min_x = -180, geometry_max_x = 180,
        geometry_min_y = -180, geometry_max_y = 180);
-- spatial-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX geog_idx_3 ON geo_table USING GIST(geog);
-- spatial-tutorial.md 24.1 24.3 25.1 25.2 25.3 25.4
CREATE INDEX ON bookstores USING GIST(geom);
-- sql-audit-logging.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE customers (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name STRING NOT NULL,
    address STRING NOT NULL,
    national_id INT NOT NULL,
    telephone INT NOT NULL,
    email STRING UNIQUE NOT NULL
);
-- sql-audit-logging.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders (
    id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    product_id INT NOT NULL,
    delivery_status STRING check (delivery_status='processing' or delivery_status='in-transit' or delivery_status='delivered') NOT NULL,
    customer_id UUID NOT NULL REFERENCES customers (id)
);
-- sql-audit-logging.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE product_ids_asc START 1 INCREMENT 1;
-- sql-faqs.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users (id INT DEFAULT unique_rowid(), name STRING);
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE mydb.mytable(x INT);
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET database = mydb;
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET database = system;
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET search_path = public, information_schema;
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.mypublictable (x INT);
-- sql-name-resolution.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.public.mypublictable (x INT);
-- sql-tuning-with-explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX on users (name);
-- sql-tuning-with-explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON users (name) STORING (credit_card);
-- sql-tuning-with-explain.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON rides (start_time) STORING (rider_id);
-- stored-procedures.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE PROCEDURE procedure_name(parameters)
  LANGUAGE procedure_language
  AS procedure_body;
-- string.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE strings (a STRING PRIMARY KEY, b STRING(4), c TEXT);
-- string.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE aliases (a STRING PRIMARY KEY, b VARCHAR, c CHAR);
-- temporary-tables.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TEMP TABLE users (
        id UUID,
        city STRING,
        name STRING,
        address STRING,
        CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC)
);
-- temporary-tables.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TEMP TABLE vehicles (
        id UUID NOT NULL,
        city STRING NOT NULL,
        type STRING,
        owner_id UUID,
        creation_time TIMESTAMP,
        CONSTRAINT "primary" PRIMARY KEY (city ASC, id ASC),
        CONSTRAINT fk_city_ref_users FOREIGN KEY (city, owner_id) REFERENCES users(city, id)
);
-- time.md 24.1 24.3
CREATE TABLE time (time_id INT PRIMARY KEY, time_val TIME);
-- time.md 24.1 24.3
CREATE TABLE time (time_id INT PRIMARY KEY, time_val TIME(4));
-- time.md 24.1 24.3
ALTER TABLE time ALTER COLUMN time_val SET DATA TYPE TIME(5);
-- timestamp.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE timestamps (a INT PRIMARY KEY, b TIMESTAMPTZ);
-- timestamp.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE timestamps (a INT PRIMARY KEY, b TIMESTAMP(3));
-- timestamp.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE timestamps ALTER COLUMN b SET DATA TYPE TIMESTAMP(4);
-- timestamp.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE timestamps ALTER COLUMN b SET DATA TYPE TIMESTAMPTZ(5);
-- transactions.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_transaction_priority = 'low';
-- trigram-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t (a INT, w STRING);
-- trigram-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN (w gin_trgm_ops);
-- trigram-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN (w gin_trgm_ops) WHERE a > 0;
-- trigram-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN (a, w gin_trgm_ops);
-- trigram-indexes.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE INDEX ON t USING GIN ((json_col->>'json_text_field'));
-- troubleshoot-replication-zones.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE movr.users CONFIGURE ZONE DISCARD;
-- unique.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE logon (
    login_id  INT PRIMARY KEY,
    customer_id   INT,
    logon_date    TIMESTAMP,
    UNIQUE (customer_id, logon_date)
  );
-- unique.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE warehouses (
    warehouse_id    INT        PRIMARY KEY NOT NULL,
    warehouse_name  STRING(35) UNIQUE,
    location_id     INT
  );
-- unique.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS logon (
    login_id INT PRIMARY KEY,
    customer_id   INT NOT NULL,
    sales_id INT,
    UNIQUE (customer_id, sales_id)
  );
-- upsert.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
    id INT PRIMARY KEY,
    name STRING,
    balance DECIMAL(10, 2) DEFAULT 0
);
-- user-defined-functions.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION add(a INT, b INT) RETURNS INT IMMUTABLE LEAKPROOF LANGUAGE SQL AS 'SELECT a + b';
-- user-defined-functions.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION add(a INT, b INT) RETURNS INT LANGUAGE SQL AS $$
  SELECT a + b;
$$;
-- uuid.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE v (token uuid);
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW quotes_per_season (season, quotes)
  AS SELECT episodes.season, count(*)
  FROM quotes
  JOIN episodes
  ON quotes.episode = episodes.id
  GROUP BY episodes.season
  ORDER BY episodes.season;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE VIEW user_accounts
  AS SELECT type, email
  FROM accounts;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON user_accounts TO bob;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE startrek.episodes RENAME COLUMN num TO number;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE startrek.episodes DROP COLUMN title;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER VIEW quotes_per_season RENAME TO quotes_count;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE VIEW quotes_count (season, quotes, stardate)
  AS SELECT episodes.season, count(*), episodes.stardate
  FROM quotes
  JOIN episodes
  ON quotes.episode = episodes.id
  GROUP BY episodes.season, episodes.stardate;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER MATERIALIZED VIEW overdrawn_accounts RENAME TO forgiven_accounts;
-- views.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TEMP VIEW temp_view (season, quotes)
  AS SELECT episodes.season, count(*)
  FROM quotes
  JOIN episodes
  ON quotes.episode = episodes.id
  GROUP BY episodes.season;
-- with-storage-parameter.md 24.1 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE ttl_test (
  id UUID PRIMARY KEY default gen_random_uuid(),
  description TEXT,
  inserted_at TIMESTAMP default current_timestamp()
) WITH (ttl_expire_after = '3 months');
-- changefeed-messages.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE test (id INT PRIMARY KEY, data JSONB);
-- comment-on.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TYPE IF NOT EXISTS my_point AS (x FLOAT, y FLOAT, z FLOAT);
-- comment-on.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON TYPE my_point IS '3D point';
-- comment-on.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
COMMENT ON TYPE my_point IS NULL;
-- cost-based-optimizer.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE accounts (
    id INT PRIMARY KEY,
    balance DECIMAL)
WITH (sql_stats_automatic_collection_enabled = true,
sql_stats_automatic_collection_min_stale_rows = 1000000,
sql_stats_automatic_collection_fraction_stale_rows= 0.05
);
-- cost-based-optimizer.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE accounts
SET (sql_stats_automatic_collection_fraction_stale_rows = 0.1,
sql_stats_automatic_collection_min_stale_rows = 2000);
-- create-function.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION change_name()
RETURNS TRIGGER AS $$
BEGIN
  NEW.name = 'Dear ' || (NEW).name;
  RETURN NEW;
END;
$$ LANGUAGE PLpgSQL;
-- create-logical-replication-stream.md 24.3 25.1
GRANT SYSTEM REPLICATION TO user;
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE lock_table (
    id INT PRIMARY KEY,
    name TEXT NOT NULL,
    is_locked BOOLEAN DEFAULT FALSE
);
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION prevent_delete_locked()
RETURNS TRIGGER AS $$
BEGIN
  IF (OLD).is_locked THEN
    RAISE EXCEPTION 'Record is locked and cannot be deleted';
  END IF;
  RETURN OLD;
END;
$$ LANGUAGE PLpgSQL;
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TRIGGER prevent_locked_delete
BEFORE DELETE ON lock_table
FOR EACH ROW
EXECUTE FUNCTION prevent_delete_locked();
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE stock (
"product_id" STRING PRIMARY KEY,
"quantity_on_hand" INTEGER NOT NULL DEFAULT 1
);
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders_placed (
"product_id" STRING NOT NULL REFERENCES stock ("product_id"),
"quantity" INTEGER NOT NULL DEFAULT 1
);
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION update_stock_after_order()
RETURNS TRIGGER
AS $$
BEGIN
  UPDATE stock
  SET quantity_on_hand = quantity_on_hand - (NEW).quantity
  WHERE stock.product_id = (NEW).product_id;
  RETURN NULL;
END;
$$ LANGUAGE PLpgSQL;
-- create-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TRIGGER trg_update_stock_after_order
AFTER INSERT ON orders_placed
FOR EACH ROW
EXECUTE FUNCTION update_stock_after_order();
-- drop-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION update_timestamp() 
RETURNS TRIGGER AS $$
BEGIN
  RAISE NOTICE 'Current timestamp: %', now();
  RETURN NEW;
END;
$$ LANGUAGE PLpgSQL;
-- drop-trigger.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TRIGGER log_update_timestamp
AFTER UPDATE ON users
FOR EACH ROW
EXECUTE FUNCTION update_timestamp();
-- ldap-authorization.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON DATABASE analytics TO crdb_analysts;
-- ldap-authorization.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT ALL ON DATABASE app TO crdb_developers;
-- manage-logical-data-replication.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE crdb_replication.dlq_113_public_promo_codes (
    id INT8 NOT NULL DEFAULT unique_rowid(),
    ingestion_job_id INT8 NOT NULL,
    table_id INT8 NOT NULL,
    dlq_timestamp TIMESTAMPTZ NOT NULL DEFAULT now():::TIMESTAMPTZ,
    dlq_reason STRING NOT NULL,
    mutation_type crdb_replication.mutation_type NULL,
    key_value_bytes BYTES NOT VISIBLE NOT NULL,
    incoming_row JSONB NULL,
    crdb_internal_dlq_timestamp_id_ingestion_job_id_shard_16 INT8 NOT VISIBLE NOT NULL AS (mod(fnv32(md5(crdb_internal.datums_to_bytes(dlq_timestamp, id, ingestion_job_id))), 16:::INT8)) VIRTUAL,
CONSTRAINT dlq_113_public_promo_codes_pkey PRIMARY KEY (ingestion_job_id ASC, dlq_timestamp ASC, id ASC) USING HASH WITH (bucket_count=16)
);
-- plpgsql.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE PROCEDURE p() LANGUAGE PLPGSQL AS $$
  BEGIN
  FOR i IN 1..10 BY 2
  LOOP
  	RAISE NOTICE '%', i;
  END LOOP;
  END $$;
-- set-transaction.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET default_transaction_priority = 'high';
-- show-logical-replication-jobs.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
GRANT SYSTEM VIEWJOB TO user;
-- triggers.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TRIGGER trigger_name 
  [ BEFORE | AFTER ] [ INSERT | UPDATE | DELETE ] ON table_name
  FOR EACH ROW
  [ WHEN boolean_condition ]
  EXECUTE FUNCTION function_name(arguments);
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 1';
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 2';
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 3';
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t (k INT PRIMARY KEY, v INT);
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE t2 (k INT PRIMARY KEY, v INT);
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 4';
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 5';
-- troubleshoot-lock-contention.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
SET application_name = 'Transaction 6';
-- vector.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE foo ADD COLUMN bar VECTOR(3);
-- vector.md 24.3 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE items (
    category STRING,
    vector VECTOR(3),
    INDEX (category)
);
-- create-function.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE OR REPLACE FUNCTION last_x_riders(x INT) RETURNS TABLE(id UUID, name VARCHAR, city VARCHAR, end_time TIMESTAMP) LANGUAGE SQL AS $$
  WITH recent_rides AS (
    SELECT rider_id, end_time FROM rides
    ORDER BY end_time DESC
  )
  SELECT u.id, u.name, u.city, r.end_time FROM users u, recent_rides r
  WHERE u.id = r.rider_id
  ORDER BY r.end_time DESC
  LIMIT x
$$;
-- time.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS time (time_id INT PRIMARY KEY, time_val TIME);
-- time.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS time_precise (time_id INT PRIMARY KEY, time_val TIME(4));
-- time.md 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE time_precise ALTER COLUMN time_val SET DATA TYPE TIME(5);
-- time.md 25.1 25.2 25.3 25.4 26.1 26.2
ALTER TABLE time_precise ALTER COLUMN time_val SET DATA TYPE TIME(3);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE posts(
   id UUID,
   created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
   INDEX (created_at) USING HASH
);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE users(
   id UUID,
   username VARCHAR,
   follower_count INT
);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE follows(
   follower UUID REFERENCES users(id),
   followee UUID REFERENCES users(id)
);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE products (
    id INT PRIMARY KEY USING HASH WITH (bucket_count = 5),
    name STRING
);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE SEQUENCE products_id_sequence;
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE countries(
id UUID PRIMARY KEY,
code VARCHAR
);
-- understand-hotspots.md 25.1 25.2 25.3 25.4 26.1 26.2
CREATE TABLE posts(
id UUID,
country_id UUID REFERENCES countries(id)
);
-- alter-policy.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders (user_id TEXT PRIMARY KEY, order_details TEXT);
-- alter-policy.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE orders ADD COLUMN is_archived BOOLEAN DEFAULT FALSE NOT NULL;
-- alter-policy.md 25.2 25.3 25.4 26.1 26.2
CREATE INDEX idx_orders_user_id_is_archived ON orders(user_id, is_archived);
-- alter-table.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
-- alter-table.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE orders DISABLE ROW LEVEL SECURITY;
-- alter-table.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE orders FORCE ROW LEVEL SECURITY;
-- alter-table.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE orders NO FORCE ROW LEVEL SECURITY;
-- changefeed-message-envelopes.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE public.products (
    id UUID NOT NULL DEFAULT gen_random_uuid(),
    name STRING NOT NULL,
    description STRING NULL,
    price DECIMAL(10,2) NOT NULL,
    in_stock BOOL NULL DEFAULT true,
    category STRING NULL,
    created_at TIMESTAMP NULL DEFAULT current_timestamp():::TIMESTAMP,
    CONSTRAINT products_pkey PRIMARY KEY (id ASC)
);
-- changefeed-messages.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE compliance_events (
    event_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id UUID NOT NULL,
    event_type STRING NOT NULL,
    event_timestamp TIMESTAMPTZ NOT NULL DEFAULT now(),
    details STRING,
    kafka_meta JSONB
);
-- create-logical-replication-stream.md 25.2 25.3 25.4 26.1 26.2
GRANT REPLICATIONSOURCE ON TABLE database.public.tablename TO user/role;
-- create-table-as.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE analysis_vehicle_location_histories
  AS SELECT * FROM movr.vehicle_location_histories
  AS OF SYSTEM TIME follower_read_timestamp();
-- create-table.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE items (
     id uuid DEFAULT gen_random_uuid(),
     embedding VECTOR (1536),
     VECTOR INDEX (embedding)
);
-- create-view.md 25.2 25.3 25.4 26.1 26.2
CREATE MATERIALIZED VIEW overdrawn_accounts
  AS SELECT id, balance
  FROM bank
  WHERE balance < 0
  AS OF SYSTEM TIME follower_read_timestamp();
-- create-view.md 25.2 25.3 25.4 26.1 26.2
CREATE MATERIALIZED VIEW overdrawn_accounts
  AS SELECT id, balance
  FROM bank
  WHERE balance < 0
  AS OF SYSTEM TIME '-10s';
-- jsonpath.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE stats (data JSONB);
-- plpgsql.md 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION square(x INT) RETURNS INT AS $$
BEGIN
	RETURN x * x;
END;
$$ LANGUAGE PLpgSQL;
-- plpgsql.md 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION get_numbers() RETURNS TABLE (n INT) AS $$
DECLARE
	i INT := 1;
BEGIN
	WHILE i <= 5 LOOP
		n := i;
		RETURN NEXT;
		i := i + 1;
	END LOOP;
END;
$$ LANGUAGE PLpgSQL;
-- plpgsql.md 25.2 25.3 25.4 26.1 26.2
CREATE FUNCTION get_even_numbers() RETURNS SETOF INT AS $$
BEGIN
	RETURN QUERY
		SELECT i FROM generate_series(1, 10) AS i WHERE i % 2 = 0;
END
$$ LANGUAGE PLpgSQL;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT hr_department to edward;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT manager to alice, carol;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT employee to alice, bob, carol, david, edward;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE employees (
    id SERIAL PRIMARY KEY,
    username TEXT UNIQUE NOT NULL,
    full_name TEXT NOT NULL,
    manager_username TEXT,
    salary NUMERIC(10, 2) NOT NULL
);
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT SELECT, INSERT, UPDATE, DELETE ON employees TO hr_department;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON employees TO manager;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON employees TO employee;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE employees ENABLE ROW LEVEL SECURITY;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS tenants (
    tenant_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    name TEXT NOT NULL UNIQUE
);
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE IF NOT EXISTS invoices (
    invoice_id SERIAL PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants(tenant_id),
    customer_name TEXT NOT NULL,
    amount NUMERIC(12, 2) NOT NULL,
    created_at TIMESTAMPTZ DEFAULT now()
);
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
CREATE INDEX idx_invoices_tenant_id ON invoices(tenant_id);
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT SELECT ON tenants TO app_dev;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
GRANT SELECT, INSERT, UPDATE, DELETE ON invoices TO app_dev;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
SET application_name = 'my_cool_app.9607a12c-3c2f-407b-ae3c-af903542395b';
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
ALTER TABLE invoices ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
-- row-level-security.md 25.2 25.3 25.4 26.1 26.2
SET application_name = 'my_cool_app.8177c2fc-3b55-47b7-bf84-38bd3a3e9c0a';
-- show-policies.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE orders (
    user_id TEXT PRIMARY KEY,
    order_details TEXT,
    is_archived BOOLEAN DEFAULT FALSE NOT NULL
);
-- vector-indexes.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE items (
    department_id INT,
    category_id INT,
    embedding VECTOR(1536),
    VECTOR INDEX (embedding)
);
-- vector-indexes.md 25.2 25.3 25.4 26.1 26.2
CREATE TABLE items (
    department_id INT,
    category_id INT,
    embedding VECTOR(1536),
    VECTOR INDEX (department_id, category_id, embedding)
);
-- vector-indexes.md 25.2
CREATE TABLE items (
    department_id INT,
    category_id INT,
    embedding VECTOR(1536),
    VECTOR INDEX embed_idx (embedding vector_l2_ops)
);
-- vector-indexes.md 25.2 25.3 25.4 26.1 26.2
SET vector_search_beam_size = 16;
-- citext.md 25.3 25.4 26.1 26.2
CREATE TABLE logins (
    name CITEXT PRIMARY KEY,
    email TEXT NOT NULL
);
-- citext.md 25.3 25.4 26.1 26.2
CREATE TABLE logins (
  username CITEXT,
  email STRING
);
-- create-sequence.md 25.3 25.4 26.1 26.2
CREATE SEQUENCE customer_seq_session_cached PER SESSION CACHE 10;
-- create-view.md 25.3 25.4 26.1 26.2
CREATE TABLE xy (x INT, y INT);
-- create-view.md 25.3 25.4 26.1 26.2
CREATE FUNCTION f_scalar() RETURNS INT LANGUAGE SQL AS $$
    SELECT count(*) FROM xy;
  $$;
-- create-view.md 25.3 25.4 26.1 26.2
CREATE FUNCTION f_setof() RETURNS SETOF xy LANGUAGE SQL AS $$
    SELECT * FROM xy;
  $$;
-- create-view.md 25.3 25.4 26.1 26.2
CREATE VIEW v_xy AS
SELECT x, y, f_scalar() AS total_rows
FROM f_setof();
-- show-create.md 25.3 25.4 26.1 26.2
CREATE TABLE users (id INT PRIMARY KEY, name STRING);
-- show-create.md 25.3 25.4 26.1 26.2
CREATE FUNCTION update_timestamp()
  RETURNS TRIGGER AS $$
  BEGIN
    RAISE NOTICE 'Current timestamp: %', now();
    RETURN NEW;
  END;
  $$ LANGUAGE PLpgSQL;
-- show-create.md 25.3 25.4 26.1 26.2
CREATE TRIGGER log_update_timestamp
  AFTER UPDATE ON users
  FOR EACH ROW
  EXECUTE FUNCTION update_timestamp();
-- show-triggers.md 25.3 25.4 26.1 26.2
CREATE FUNCTION update_timestamp()
RETURNS TRIGGER AS $$
BEGIN
  RAISE NOTICE 'Current timestamp: %', now();
  RETURN NEW;
END;
$$ LANGUAGE PLpgSQL;
-- vector-indexes.md 25.3 25.4 26.1 26.2
CREATE TABLE items (
    department_id INT,
    category_id   INT,
    embedding     VECTOR(1536),
    VECTOR INDEX embed_idx (embedding vector_cosine_ops)
);
-- alter-external-connection.md 25.4 26.1 26.2
GRANT UPDATE ON EXTERNAL CONNECTION backup_bucket TO user;
-- crdb-internal.md 25.4
SET allow_unsafe_internals = off;
-- crdb-internal.md 25.4 26.1 26.2
SET allow_unsafe_internals = on;
-- jwt-authorization.md 25.4 26.1 26.2
GRANT ALL ON DATABASE app TO developers;
-- jwt-authorization.md 25.4 26.1 26.2
GRANT SELECT ON DATABASE analytics TO analysts;
-- ltree.md 25.4 26.1 26.2
CREATE TABLE org_structure (
    id INT PRIMARY KEY,
    path LTREE NOT NULL,
    name STRING,
    INDEX path_idx (path)
);
-- transaction-diagnostics.md 25.4 26.1 26.2
SET application_name = 'cockroachdb_test';
-- row-level-security.md 26.1 26.2
SET row_security = off;
-- show-grants.md 26.1 26.2
GRANT ALL ON TABLE users TO analysts;
-- show-grants.md 26.1 26.2
GRANT analysts TO priya;
-- alter-index.md 26.2
CREATE TABLE users (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  email STRING UNIQUE,
  name STRING
) LOCALITY REGIONAL BY ROW;
-- alter-index.md 26.2
ALTER INDEX users_email_key SET (skip_unique_checks = true);
-- alter-index.md 26.2
ALTER INDEX users_email_key RESET (skip_unique_checks);
-- alter-view.md 26.2
ALTER VIEW user_accounts SET (security_invoker = true);
-- alter-view.md 26.2
ALTER VIEW user_accounts RESET (security_invoker);
-- canary-statistics.md 26.2
CREATE TABLE t (x int) WITH (sql_stats_canary_window = '1h');
-- canary-statistics.md 26.2
ALTER TABLE t RESET (sql_stats_canary_window);
-- canary-statistics.md 26.2
ALTER TABLE t SET (sql_stats_canary_window = '1h');
-- canary-statistics.md 26.2
SET canary_stats_mode = 'force_canary';
-- create-view.md 26.2
CREATE VIEW user_accounts WITH (security_invoker) AS
  SELECT type, email
  FROM accounts;
-- hash-sharded-indexes.md 26.2
CREATE INDEX idx_region_city ON data_test (region, city, population)
    USING HASH WITH (bucket_count = 4, shard_columns = (region));
-- restore.md 26.2
SET use_backups_with_ids = true;
-- views.md 26.2
CREATE VIEW user_accounts_invoker WITH (security_invoker) AS
  SELECT type, email
  FROM accounts;
