\restrict KEY

-- dumpshard-target: cockroachdb:24.3
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

-- pgdump2csv: statement dropped (rule crdb-set-session)
-- pgdump2csv: statement dropped (rule crdb-set-session)
-- pgdump2csv: statement dropped (rule crdb-set-session)
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
-- pgdump2csv: statement dropped (rule crdb-set-config)
SET check_function_bodies = false;
-- pgdump2csv: statement dropped (rule crdb-set-session)
-- pgdump2csv: statement dropped (rule crdb-set-session)
-- pgdump2csv: statement dropped (rule crdb-set-session)

--
-- Name: sales; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA sales;


ALTER SCHEMA sales OWNER TO postgres;

--
-- Name: mood; Type: TYPE; Schema: public; Owner: postgres
--

CREATE TYPE public.mood AS ENUM (
    'sad',
    'ok',
    'happy',
    'very "happy", really'
);


ALTER TYPE public.mood OWNER TO postgres;

--
-- Name: posint; Type: DOMAIN; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-domain)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: add_one(integer); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.add_one(integer) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $_$ SELECT $1 + 1; $_$;


ALTER FUNCTION public.add_one(integer) OWNER TO postgres;

--
-- Name: tricky(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.tricky() RETURNS text
    LANGUAGE plpgsql
    AS $$
BEGIN
    -- The body deliberately contains lines that look like COPY data.
    RETURN '
COPY public.x (a) FROM stdin;
1
\.
';
END
$$;


ALTER FUNCTION public.tricky() OWNER TO postgres;

-- pgdump2csv: statement dropped (rule crdb-set-session)

-- pgdump2csv: statement dropped (rule crdb-set-session)

--
-- Name: Order; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."Order" (
    "Id" INT4 NOT NULL,
    "select" text,
    "weird ""col"", name" text,
    "from" INT4,
    "CamelCase" boolean,
    CONSTRAINT "Order_pkey" PRIMARY KEY ("Id")
);


ALTER TABLE public."Order" OWNER TO postgres;

--
-- Name: animals; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.animals (
    id INT4 NOT NULL,
    name text,
    CONSTRAINT animals_pkey PRIMARY KEY (id)
);


ALTER TABLE public.animals OWNER TO postgres;

--
-- Name: arrays; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.arrays (
    id INT4 NOT NULL,
    ints INT4[],
    texts text[],
    grid INT4[],
    moods public.mood[],
    CONSTRAINT arrays_pkey PRIMARY KEY (id)
);


ALTER TABLE public.arrays OWNER TO postgres;

--
-- Name: blobs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.blobs (
    id INT4 NOT NULL,
    b bytea,
    note text,
    CONSTRAINT blobs_pkey PRIMARY KEY (id)
);


ALTER TABLE public.blobs OWNER TO postgres;

--
-- Name: counter_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.counter_seq
    START WITH 1000
    INCREMENT BY 5
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.counter_seq OWNER TO postgres;

--
-- Name: customer; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.customer (
    id INT4 NOT NULL,
    name text NOT NULL,
    note text,
    email character varying(100),
    score numeric(8,3),
    signed_up date,
    active boolean DEFAULT true NOT NULL,
    CONSTRAINT customer_pkey PRIMARY KEY (id)
);


ALTER TABLE public.customer OWNER TO postgres;

--
-- Name: customer_notes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.customer_notes (
    id INT4 NOT NULL,
    customer_id INT4 NOT NULL,
    body text,
    CONSTRAINT customer_notes_pkey PRIMARY KEY (id)
);


ALTER TABLE public.customer_notes OWNER TO postgres;

--
-- Name: customer_summary; Type: VIEW; Schema: public; Owner: postgres
--

CREATE VIEW public.customer_summary AS
 SELECT c.id,
    c.name,
    count(n.id) AS notes
   FROM (public.customer c
     LEFT JOIN public.customer_notes n ON ((n.customer_id = c.id)))
  GROUP BY c.id, c.name;


ALTER TABLE public.customer_summary OWNER TO postgres;

--
-- Name: docs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.docs (
    id INT4 NOT NULL,
    j text,
    jb jsonb,
    CONSTRAINT docs_pkey PRIMARY KEY (id)
);


ALTER TABLE public.docs OWNER TO postgres;

--
-- Name: dogs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.dogs (
    id INT4 NOT NULL,
    name text,
    breed text
);


ALTER TABLE public.dogs OWNER TO postgres;

--
-- Name: dropped; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.dropped (
    id INT4 NOT NULL,
    keep text,
    tail INT4,
    CONSTRAINT dropped_pkey PRIMARY KEY (id)
);


ALTER TABLE public.dropped OWNER TO postgres;

--
-- Name: empty_table; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.empty_table (
    id INT4 NOT NULL,
    v text,
    CONSTRAINT empty_table_pkey PRIMARY KEY (id)
);


ALTER TABLE public.empty_table OWNER TO postgres;

--
-- Name: events; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events (
    id INT4 NOT NULL,
    happened date NOT NULL,
    kind text,
    payload jsonb,
    CONSTRAINT events_pkey PRIMARY KEY (id, happened)
);


ALTER TABLE public.events OWNER TO postgres;

--
-- Name: events_2023; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: events_2024; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: events_default; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen (
    id INT4 NOT NULL,
    a INT4 NOT NULL,
    b INT4,
    total INT4 GENERATED ALWAYS AS ((a + COALESCE(b, 0))) STORED,
    label text,
    CONSTRAINT gen_pkey PRIMARY KEY (id)
);


ALTER TABLE public.gen OWNER TO postgres;

--
-- Name: gen_parent; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_parent (
    a INT4,
    b INT4
);


ALTER TABLE public.gen_parent OWNER TO postgres;

--
-- Name: gen_child; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_child (
    a INT4,
    b INT4 GENERATED ALWAYS AS ((a * 2)) STORED
);


ALTER TABLE public.gen_child OWNER TO postgres;

--
-- Name: gen_parted; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_parted (
    a INT4 NOT NULL,
    c text NOT NULL,
    b INT4 GENERATED ALWAYS AS (length(c)) STORED NOT NULL,
    CONSTRAINT gen_parted_pkey PRIMARY KEY (a, b)
);


ALTER TABLE public.gen_parted OWNER TO postgres;

--
-- Name: gen_parted_high; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen_parted_low; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen_pk; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_pk (
    a INT4 NOT NULL,
    c text NOT NULL,
    b INT4 GENERATED ALWAYS AS (length(c)) STORED NOT NULL,
    CONSTRAINT gen_pk_pkey PRIMARY KEY (a, b)
);


ALTER TABLE public.gen_pk OWNER TO postgres;

--
-- Name: größe; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."größe" (
    "ключ" INT4 NOT NULL,
    "värde" text,
    CONSTRAINT "größe_pkey" PRIMARY KEY ("ключ")
);


ALTER TABLE public."größe" OWNER TO postgres;

--
-- Name: ident; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.ident (
    id INT4 NOT NULL,
    v text,
    CONSTRAINT ident_pkey PRIMARY KEY (id)
);


ALTER TABLE public.ident OWNER TO postgres;

--
-- Name: ident_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.ident_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER TABLE public.ident ALTER COLUMN id SET DEFAULT nextval('public.ident_id_seq'::regclass);
ALTER SEQUENCE public.ident_id_seq OWNED BY public.ident.id;


--
-- Name: items; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.items (
    id INT4 NOT NULL,
    name text NOT NULL,
    price numeric(10,2),
    CONSTRAINT items_pkey PRIMARY KEY (id)
);


ALTER TABLE public.items OWNER TO postgres;

--
-- Name: items_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.items_id_seq
    AS INT4
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.items_id_seq OWNER TO postgres;

--
-- Name: items_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: postgres
--

ALTER SEQUENCE public.items_id_seq OWNED BY public.items.id;


--
-- Name: late_parent; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.late_parent (
    id INT4,
    name text,
    extra INT4
);


ALTER TABLE public.late_parent OWNER TO postgres;

--
-- Name: late_child; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.late_child (
    id INT4,
    name text,
    extra INT4,
    note text
);


ALTER TABLE public.late_child OWNER TO postgres;

--
-- Name: misc_types; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.misc_types (
    id INT4 NOT NULL,
    addr inet,
    net INET,
    mac text CHECK (mac ~ '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$'),
    bits bit(4),
    vbits bit varying(16),
    rng text,
    drng text,
    pt text,
    tsv tsvector,
    c "char",
    nm name,
    CONSTRAINT misc_types_pkey PRIMARY KEY (id)
);


ALTER TABLE public.misc_types OWNER TO postgres;

--
-- Name: moods; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.moods (
    id INT4 NOT NULL,
    m public.mood NOT NULL,
    qty INT4 CHECK ((qty > 0)),
    note text,
    CONSTRAINT moods_pkey PRIMARY KEY (id)
);


ALTER TABLE public.moods OWNER TO postgres;

--
-- Name: mood_counts; Type: MATERIALIZED VIEW; Schema: public; Owner: postgres
--

CREATE MATERIALIZED VIEW public.mood_counts AS
 SELECT moods.m,
    count(*) AS n
   FROM public.moods
  GROUP BY moods.m
  WITH NO DATA;


ALTER TABLE public.mood_counts OWNER TO postgres;

--
-- Name: my.table name; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."my.table name" (
    "key col" INT4 NOT NULL,
    value text,
    "Mixed.Case col" numeric,
    CONSTRAINT "my.table name_pkey" PRIMARY KEY ("key col")
);


ALTER TABLE public."my.table name" OWNER TO postgres;

--
-- Name: nopk; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.nopk (
    a INT4,
    b text
);


ALTER TABLE public.nopk OWNER TO postgres;

--
-- Name: numbers; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.numbers (
    id INT4 NOT NULL,
    n numeric,
    n40 numeric(40,20),
    r real,
    d double precision,
    i2 INT2,
    i8 bigint,
    CONSTRAINT numbers_pkey PRIMARY KEY (id)
);


ALTER TABLE public.numbers OWNER TO postgres;

--
-- Name: onecol_date; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_date (
    d date
);


ALTER TABLE public.onecol_date OWNER TO postgres;

--
-- Name: onecol_domain; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_domain (
    d INT4 CHECK ((d > 0))
);


ALTER TABLE public.onecol_domain OWNER TO postgres;

--
-- Name: onecol_int; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_int (
    v INT4
);


ALTER TABLE public.onecol_int OWNER TO postgres;

--
-- Name: onecol_marks; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_marks (
    v text
);


ALTER TABLE public.onecol_marks OWNER TO postgres;

--
-- Name: onecol_mood; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_mood (
    m public.mood
);


ALTER TABLE public.onecol_mood OWNER TO postgres;

--
-- Name: onecol_nulls; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_nulls (
    v text
);


ALTER TABLE public.onecol_nulls OWNER TO postgres;

--
-- Name: onecol_point; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_point (
    p text
);


ALTER TABLE public.onecol_point OWNER TO postgres;

--
-- Name: pairs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.pairs (
    a INT4 NOT NULL,
    b text NOT NULL,
    v text,
    CONSTRAINT pairs_pkey PRIMARY KEY (b, a)
);


ALTER TABLE public.pairs OWNER TO postgres;

--
-- Name: select; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."select" (
    "table" INT4 NOT NULL,
    "group" text,
    CONSTRAINT select_pkey PRIMARY KEY ("table")
);


ALTER TABLE public."select" OWNER TO postgres;

--
-- Name: texts; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.texts (
    id INT4 NOT NULL,
    label text NOT NULL,
    val text,
    vc character varying(40),
    ch character(3) DEFAULT 'a;b'::bpchar,
    CONSTRAINT texts_pkey PRIMARY KEY (id)
);


ALTER TABLE public.texts OWNER TO postgres;

--
-- Name: TABLE texts; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON TABLE public.texts IS 'A comment that looks like data:
COPY public.texts (id) FROM stdin;
1
\.
';


--
-- Name: COLUMN texts.val; Type: COMMENT; Schema: public; Owner: postgres
--

COMMENT ON COLUMN public.texts.val IS 'value; with "quotes" and a ''single'' quote';


--
-- Name: times; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.times (
    id INT4 NOT NULL,
    ts timestamp without time zone,
    tstz timestamp with time zone,
    d date,
    t time without time zone,
    ttz time with time zone,
    iv interval,
    u uuid,
    ok boolean,
    CONSTRAINT times_pkey PRIMARY KEY (id)
);


ALTER TABLE public.times OWNER TO postgres;

--
-- Name: items; Type: TABLE; Schema: sales; Owner: postgres
--

CREATE TABLE sales.items (
    id bigint NOT NULL,
    sku text NOT NULL,
    qty INT4 DEFAULT 0 NOT NULL,
    mood public.mood,
    CONSTRAINT items_pkey PRIMARY KEY (id)
);


ALTER TABLE sales.items OWNER TO postgres;

--
-- Name: items_id_seq; Type: SEQUENCE; Schema: sales; Owner: postgres
--

CREATE SEQUENCE sales.items_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER TABLE sales.items ALTER COLUMN id SET DEFAULT nextval('sales.items_id_seq'::regclass);
ALTER SEQUENCE sales.items_id_seq OWNED BY sales.items.id;


--
-- Name: events_2023; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)


--
-- Name: events_2024; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)


--
-- Name: events_default; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)


--
-- Name: gen_parted_high; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)


--
-- Name: gen_parted_low; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)


--
-- Name: items id; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.items ALTER COLUMN id SET DEFAULT nextval('public.items_id_seq'::regclass);

\unrestrict KEY
