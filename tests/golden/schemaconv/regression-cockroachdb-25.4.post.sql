
-- dumpshard-target: cockroachdb:25.4
--
-- Post-data part of the dump, written by pgdump2csv: load it after the data.
--

SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;



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

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: bare bare_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: booking booking_during_excl; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-exclude)


--
-- Name: booking booking_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: child child_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: docs docs_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: events_2024 events_2024_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen gen_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: geo geo_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: ids ids_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: net net_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: people people_pkey; Type: CONSTRAINT; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: events_2024_pkey; Type: INDEX ATTACH; Schema: reg; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- PostgreSQL database dump complete
--


