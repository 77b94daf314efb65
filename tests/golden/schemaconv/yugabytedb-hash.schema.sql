\restrict KEY

-- dumpshard-target: yugabytedb:2024.2
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

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

CREATE DOMAIN public.posint AS integer
	CONSTRAINT posint_check CHECK ((VALUE > 0));


ALTER DOMAIN public.posint OWNER TO postgres;

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

SET default_tablespace = '';

-- pgdump2csv: statement dropped (rule yb-set-access-method)

--
-- Name: Order; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."Order" (
    "Id" integer NOT NULL,
    "select" text,
    "weird ""col"", name" text,
    "from" integer,
    "CamelCase" boolean,
    CONSTRAINT "Order_pkey" PRIMARY KEY ("Id" HASH)
);


ALTER TABLE public."Order" OWNER TO postgres;

--
-- Name: animals; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.animals (
    id integer NOT NULL,
    name text,
    CONSTRAINT animals_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.animals OWNER TO postgres;

--
-- Name: arrays; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.arrays (
    id integer NOT NULL,
    ints integer[],
    texts text[],
    grid integer[],
    moods public.mood[],
    CONSTRAINT arrays_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.arrays OWNER TO postgres;

--
-- Name: blobs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.blobs (
    id integer NOT NULL,
    b bytea,
    note text,
    CONSTRAINT blobs_pkey PRIMARY KEY (id HASH)
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
    id integer NOT NULL,
    name text NOT NULL,
    note text,
    email character varying(100),
    score numeric(8,3),
    signed_up date,
    active boolean DEFAULT true NOT NULL,
    CONSTRAINT customer_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.customer OWNER TO postgres;

--
-- Name: customer_notes; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.customer_notes (
    id integer NOT NULL,
    customer_id integer NOT NULL,
    body text,
    CONSTRAINT customer_notes_pkey PRIMARY KEY (id HASH)
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
    id integer NOT NULL,
    j json,
    jb jsonb,
    CONSTRAINT docs_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.docs OWNER TO postgres;

--
-- Name: dogs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.dogs (
    id integer NOT NULL,
    name text,
    breed text
);


ALTER TABLE public.dogs OWNER TO postgres;

--
-- Name: dropped; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.dropped (
    id integer NOT NULL,
    keep text,
    tail integer,
    CONSTRAINT dropped_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.dropped OWNER TO postgres;

--
-- Name: empty_table; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.empty_table (
    id integer NOT NULL,
    v text,
    CONSTRAINT empty_table_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.empty_table OWNER TO postgres;

--
-- Name: events; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events (
    id integer NOT NULL,
    happened date NOT NULL,
    kind text,
    payload jsonb,
    CONSTRAINT events_pkey PRIMARY KEY (id HASH, happened ASC)
)
PARTITION BY RANGE (happened);


ALTER TABLE public.events OWNER TO postgres;

--
-- Name: events_2023; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events_2023 (
    id integer NOT NULL,
    happened date NOT NULL,
    kind text,
    payload jsonb,
    CONSTRAINT events_2023_pkey PRIMARY KEY (id HASH, happened ASC)
);


ALTER TABLE public.events_2023 OWNER TO postgres;

--
-- Name: events_2024; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events_2024 (
    id integer NOT NULL,
    happened date NOT NULL,
    kind text,
    payload jsonb,
    CONSTRAINT events_2024_pkey PRIMARY KEY (id HASH, happened ASC)
);


ALTER TABLE public.events_2024 OWNER TO postgres;

--
-- Name: events_default; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events_default (
    id integer NOT NULL,
    happened date NOT NULL,
    kind text,
    payload jsonb,
    CONSTRAINT events_default_pkey PRIMARY KEY (id HASH, happened ASC)
);


ALTER TABLE public.events_default OWNER TO postgres;

--
-- Name: gen; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen (
    id integer NOT NULL,
    a integer NOT NULL,
    b integer,
    total integer,
    label text,
    CONSTRAINT gen_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.gen OWNER TO postgres;

--
-- Name: gen_parent; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_parent (
    a integer,
    b integer
);


ALTER TABLE public.gen_parent OWNER TO postgres;

--
-- Name: gen_child; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.gen_child (
    a integer,
    b integer
);


ALTER TABLE public.gen_child OWNER TO postgres;

--
-- Name: gen_parted; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-generated-key)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen_parted_high; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-generated-key)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen_parted_low; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-generated-key)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen_pk; Type: TABLE; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-generated-key)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: größe; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."größe" (
    "ключ" integer NOT NULL,
    "värde" text,
    CONSTRAINT "größe_pkey" PRIMARY KEY ("ключ" HASH)
);


ALTER TABLE public."größe" OWNER TO postgres;

--
-- Name: ident; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.ident (
    id integer NOT NULL,
    v text,
    CONSTRAINT ident_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.ident OWNER TO postgres;

--
-- Name: ident_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.ident ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.ident_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: items; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.items (
    id integer NOT NULL,
    name text NOT NULL,
    price numeric(10,2),
    CONSTRAINT items_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.items OWNER TO postgres;

--
-- Name: items_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

CREATE SEQUENCE public.items_id_seq
    AS integer
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
    id integer,
    name text,
    extra integer
);


ALTER TABLE public.late_parent OWNER TO postgres;

--
-- Name: late_child; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.late_child (
    id integer,
    name text,
    extra integer,
    note text
);


ALTER TABLE public.late_child OWNER TO postgres;

--
-- Name: misc_types; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.misc_types (
    id integer NOT NULL,
    addr inet,
    net cidr,
    mac macaddr,
    bits bit(4),
    vbits bit varying(16),
    rng int4range,
    drng daterange,
    pt point,
    tsv tsvector,
    c "char",
    nm name,
    CONSTRAINT misc_types_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.misc_types OWNER TO postgres;

--
-- Name: moods; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.moods (
    id integer NOT NULL,
    m public.mood NOT NULL,
    qty public.posint,
    note text,
    CONSTRAINT moods_pkey PRIMARY KEY (id HASH)
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
    "key col" integer NOT NULL,
    value text,
    "Mixed.Case col" numeric,
    CONSTRAINT "my.table name_pkey" PRIMARY KEY ("key col" HASH)
);


ALTER TABLE public."my.table name" OWNER TO postgres;

--
-- Name: nopk; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.nopk (
    a integer,
    b text
);


ALTER TABLE public.nopk OWNER TO postgres;

--
-- Name: numbers; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.numbers (
    id integer NOT NULL,
    n numeric,
    n40 numeric(40,20),
    r real,
    d double precision,
    i2 smallint,
    i8 bigint,
    CONSTRAINT numbers_pkey PRIMARY KEY (id HASH)
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
    d public.posint
);


ALTER TABLE public.onecol_domain OWNER TO postgres;

--
-- Name: onecol_int; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.onecol_int (
    v integer
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
    p point
);


ALTER TABLE public.onecol_point OWNER TO postgres;

--
-- Name: pairs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.pairs (
    a integer NOT NULL,
    b text NOT NULL,
    v text,
    CONSTRAINT pairs_pkey PRIMARY KEY (b HASH, a ASC)
);


ALTER TABLE public.pairs OWNER TO postgres;

--
-- Name: select; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public."select" (
    "table" integer NOT NULL,
    "group" text,
    CONSTRAINT select_pkey PRIMARY KEY ("table" HASH)
);


ALTER TABLE public."select" OWNER TO postgres;

--
-- Name: texts; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.texts (
    id integer NOT NULL,
    label text NOT NULL,
    val text,
    vc character varying(40),
    ch character(3) DEFAULT 'a;b'::bpchar,
    CONSTRAINT texts_pkey PRIMARY KEY (id HASH)
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
    id integer NOT NULL,
    ts timestamp without time zone,
    tstz timestamp with time zone,
    d date,
    t time without time zone,
    ttz time with time zone,
    iv interval,
    u uuid,
    ok boolean,
    CONSTRAINT times_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE public.times OWNER TO postgres;

--
-- Name: items; Type: TABLE; Schema: sales; Owner: postgres
--

CREATE TABLE sales.items (
    id bigint NOT NULL,
    sku text NOT NULL,
    qty integer DEFAULT 0 NOT NULL,
    mood public.mood,
    CONSTRAINT items_pkey PRIMARY KEY (id HASH)
);


ALTER TABLE sales.items OWNER TO postgres;

--
-- Name: items_id_seq; Type: SEQUENCE; Schema: sales; Owner: postgres
--

ALTER TABLE sales.items ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME sales.items_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: events_2023; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_2023 FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');


--
-- Name: events_2024; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');


--
-- Name: events_default; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_default DEFAULT;


--
-- Name: gen_parted_high; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen_parted_low; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: items id; Type: DEFAULT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.items ALTER COLUMN id SET DEFAULT nextval('public.items_id_seq'::regclass);

\unrestrict KEY
