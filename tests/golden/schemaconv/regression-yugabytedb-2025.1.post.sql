
-- dumpshard-target: yugabytedb:2025.1
--
-- Post-data part of the dump, written by pgdump2csv: load it after the data.
--

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
SET default_tablespace = '';



--
-- Name: always_id_seq; Type: SEQUENCE SET; Schema: reg; Owner: postgres
--

SELECT pg_catalog.setval('reg.always_id_seq', 2, true);


--
-- Name: ids_id_seq; Type: SEQUENCE SET; Schema: reg; Owner: postgres
--

SELECT pg_catalog.setval('reg.ids_id_seq', 3, true);


--
-- Name: always always_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: bare bare_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: booking booking_during_excl; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-exclude)


--
-- Name: booking booking_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: child child_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: docs docs_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events_2024 events_2024_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: gen gen_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: geo geo_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: ids ids_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: net net_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: people people_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events_2024_pkey; Type: INDEX ATTACH; Schema: reg; Owner: postgres
--

ALTER INDEX reg.events_pkey ATTACH PARTITION reg.events_2024_pkey;


--
-- PostgreSQL database dump complete
--


