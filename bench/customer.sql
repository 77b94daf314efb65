-- DBT-2 (TPC-C) customer table, the benchmark table of dumpshard's bench/ scripts.
CREATE TABLE public.customer (
    c_id integer NOT NULL,
    c_d_id integer NOT NULL,
    c_w_id integer NOT NULL,
    c_first character varying(16),
    c_middle character(2),
    c_last character varying(16),
    c_street_1 character varying(20),
    c_street_2 character varying(20),
    c_city character varying(20),
    c_state character(2),
    c_zip character(9),
    c_phone character(16),
    c_since timestamp without time zone,
    c_credit character(2),
    c_credit_lim numeric(24,12),
    c_discount numeric(4,4),
    c_balance numeric(24,12),
    c_ytd_payment numeric(24,12),
    c_payment_cnt integer,
    c_delivery_cnt integer,
    c_data character varying(500)
);

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_pkey PRIMARY KEY (c_w_id, c_d_id, c_id);
