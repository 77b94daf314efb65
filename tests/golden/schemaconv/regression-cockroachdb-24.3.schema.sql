
-- dumpshard-target: cockroachdb:24.3
--
-- PostgreSQL database dump
--



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
-- Name: reg; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA reg;


ALTER SCHEMA reg OWNER TO postgres;

--
-- Name: floatrange; Type: TYPE; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-range-type)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: person; Type: TYPE; Schema: reg; Owner: postgres
--

CREATE TYPE reg.person AS (
	id integer,
	name text
);


ALTER TYPE reg.person OWNER TO postgres;

-- pgdump2csv: statement dropped (rule crdb-set-session)

-- pgdump2csv: statement dropped (rule crdb-set-session)

--
-- Name: always; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.always (
    id bigint NOT NULL,
    v INT2,
    CONSTRAINT always_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.always OWNER TO postgres;

--
-- Name: always_id_seq; Type: SEQUENCE; Schema: reg; Owner: postgres
--

CREATE SEQUENCE reg.always_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER TABLE reg.always ALTER COLUMN id SET DEFAULT nextval('reg.always_id_seq'::regclass);
ALTER SEQUENCE reg.always_id_seq OWNED BY reg.always.id;


--
-- Name: parent; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.parent (
    id INT4 NOT NULL,
    kind text
);


ALTER TABLE reg.parent OWNER TO postgres;

--
-- Name: bare; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.bare (
    id INT4 NOT NULL,
    kind text,
    CONSTRAINT bare_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.bare OWNER TO postgres;

--
-- Name: booking; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.booking (
    id INT4 NOT NULL,
    span text,
    during text,
    CONSTRAINT booking_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.booking OWNER TO postgres;

--
-- Name: child; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.child (
    id INT4 NOT NULL,
    kind text,
    extra text,
    CONSTRAINT child_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.child OWNER TO postgres;

--
-- Name: docs; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.docs (
    id INT4 NOT NULL,
    j text,
    jb jsonb,
    CONSTRAINT docs_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.docs OWNER TO postgres;

--
-- Name: events; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.events (
    id INT4 NOT NULL,
    at date NOT NULL,
    CONSTRAINT events_pkey PRIMARY KEY (id, at)
);


ALTER TABLE reg.events OWNER TO postgres;

--
-- Name: events_2024; Type: TABLE; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-partition-rows)


-- pgdump2csv: statement dropped (rule goes-with-left-out)

--
-- Name: gen; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.gen (
    a INT4 NOT NULL,
    b INT4 GENERATED ALWAYS AS ((a * 2)) STORED,
    CONSTRAINT gen_pkey PRIMARY KEY (a)
);


ALTER TABLE reg.gen OWNER TO postgres;

--
-- Name: geo; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.geo (
    id INT4 NOT NULL,
    p text,
    b text,
    c text,
    CONSTRAINT geo_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.geo OWNER TO postgres;

--
-- Name: ids; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.ids (
    id INT4 NOT NULL,
    v text,
    CONSTRAINT ids_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.ids OWNER TO postgres;

--
-- Name: ids_id_seq; Type: SEQUENCE; Schema: reg; Owner: postgres
--

CREATE SEQUENCE reg.ids_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER TABLE reg.ids ALTER COLUMN id SET DEFAULT nextval('reg.ids_id_seq'::regclass);
ALTER SEQUENCE reg.ids_id_seq OWNED BY reg.ids.id;


--
-- Name: net; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.net (
    id INT4 NOT NULL,
    a inet,
    n INET,
    m text CHECK (m ~ '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$'),
    m8 text CHECK (m8 ~ '^[0-9a-f]{2}(:[0-9a-f]{2}){7}$'),
    CONSTRAINT net_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.net OWNER TO postgres;

--
-- Name: people; Type: TABLE; Schema: reg; Owner: postgres
--

CREATE TABLE reg.people (
    id INT4 NOT NULL,
    name text,
    CONSTRAINT people_pkey PRIMARY KEY (id)
);


ALTER TABLE reg.people OWNER TO postgres;

--
-- Name: events_2024; Type: TABLE ATTACH; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-partition)
