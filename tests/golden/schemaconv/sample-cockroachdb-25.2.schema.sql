
-- dumpshard-target: cockroachdb:25.2
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
-- Name: shop; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA shop;


ALTER SCHEMA shop OWNER TO postgres;

--
-- Name: order_status; Type: TYPE; Schema: shop; Owner: postgres
--

CREATE TYPE shop.order_status AS ENUM (
    'new',
    'paid',
    'shipped',
    'cancelled'
);


ALTER TYPE shop.order_status OWNER TO postgres;

-- pgdump2csv: statement dropped (rule crdb-set-session)

-- pgdump2csv: statement dropped (rule crdb-set-session)

--
-- Name: customers; Type: TABLE; Schema: shop; Owner: postgres
--

CREATE TABLE shop.customers (
    id bigint NOT NULL,
    name text NOT NULL,
    email text,
    city text,
    note text,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT customers_pkey PRIMARY KEY (id)
);


ALTER TABLE shop.customers OWNER TO postgres;

--
-- Name: customers_id_seq; Type: SEQUENCE; Schema: shop; Owner: postgres
--

CREATE SEQUENCE shop.customers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER TABLE shop.customers ALTER COLUMN id SET DEFAULT nextval('shop.customers_id_seq'::regclass);
ALTER SEQUENCE shop.customers_id_seq OWNED BY shop.customers.id;


--
-- Name: order_lines; Type: TABLE; Schema: shop; Owner: postgres
--

CREATE TABLE shop.order_lines (
    order_id bigint NOT NULL,
    line_no INT4 NOT NULL,
    sku text NOT NULL,
    qty INT4 NOT NULL,
    unit_price numeric(10,2) NOT NULL,
    CONSTRAINT order_lines_qty_check CHECK ((qty > 0)),
    CONSTRAINT order_lines_pkey PRIMARY KEY (order_id, line_no)
);


ALTER TABLE shop.order_lines OWNER TO postgres;

--
-- Name: orders; Type: TABLE; Schema: shop; Owner: postgres
--

CREATE TABLE shop.orders (
    id bigint NOT NULL,
    customer_id bigint NOT NULL,
    status shop.order_status DEFAULT 'new'::shop.order_status NOT NULL,
    ordered_at timestamp with time zone NOT NULL,
    shipping_address text,
    comment text,
    CONSTRAINT orders_pkey PRIMARY KEY (id)
);


ALTER TABLE shop.orders OWNER TO postgres;

--
-- Name: order_totals; Type: VIEW; Schema: shop; Owner: postgres
--

CREATE VIEW shop.order_totals AS
 SELECT o.id,
    o.customer_id,
    sum(((l.qty)::numeric * l.unit_price)) AS total
   FROM (shop.orders o
     JOIN shop.order_lines l ON ((l.order_id = o.id)))
  GROUP BY o.id, o.customer_id;


ALTER TABLE shop.order_totals OWNER TO postgres;

--
-- Name: products; Type: TABLE; Schema: shop; Owner: postgres
--

CREATE TABLE shop.products (
    sku text NOT NULL,
    title text NOT NULL,
    price numeric(10,2) NOT NULL,
    tags text[],
    CONSTRAINT products_price_check CHECK ((price >= (0)::numeric)),
    CONSTRAINT products_pkey PRIMARY KEY (sku)
);


ALTER TABLE shop.products OWNER TO postgres;

