\restrict KEY

-- dumpshard-target: cockroachdb:24.3
--
-- Post-data part of the dump, written by pgdump2csv: load it after the data.
--

SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;



--
-- Name: counter_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.counter_seq', 1015, true);


--
-- Name: ident_id_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.ident_id_seq', 3, true);


--
-- Name: items_id_seq; Type: SEQUENCE SET; Schema: public; Owner: postgres
--

SELECT pg_catalog.setval('public.items_id_seq', 4, true);


--
-- Name: items_id_seq; Type: SEQUENCE SET; Schema: sales; Owner: postgres
--

SELECT pg_catalog.setval('sales.items_id_seq', 3, true);


--
-- Name: Order Order_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: animals animals_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: arrays arrays_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: blobs blobs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: customer_notes customer_notes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: customer customer_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: docs docs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: dropped dropped_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: empty_table empty_table_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: events_2023 events_2023_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: events_2024 events_2024_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: events_default events_default_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen_parted gen_parted_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: gen_parted_high gen_parted_high_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen_parted_low gen_parted_low_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen_pk gen_pk_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: gen gen_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: größe größe_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: ident ident_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: misc_types misc_types_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: moods moods_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: my.table name my.table name_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: numbers numbers_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: pairs pairs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: select select_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: texts texts_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: times times_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: sales; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-pk-moved)


--
-- Name: items items_sku_key; Type: CONSTRAINT; Schema: sales; Owner: postgres
--

ALTER TABLE ONLY sales.items
    ADD CONSTRAINT items_sku_key UNIQUE (sku);


--
-- Name: customer_name_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX customer_name_idx ON public.customer USING btree (name);


--
-- Name: customer_notes_customer_id_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX customer_notes_customer_id_idx ON public.customer_notes USING btree (customer_id);


--
-- Name: my.table name_value_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX "my.table name_value_idx" ON public."my.table name" USING btree (lower(value));


--
-- Name: events_2023_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- Name: events_2024_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- Name: events_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- Name: gen_parted_high_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- Name: gen_parted_low_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule crdb-attach-index)


--
-- Name: customer_notes customer_notes_customer_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.customer_notes
    ADD CONSTRAINT customer_notes_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES public.customer(id) ON DELETE CASCADE;


--
-- Name: mood_counts; Type: MATERIALIZED VIEW DATA; Schema: public; Owner: postgres
--

REFRESH MATERIALIZED VIEW public.mood_counts;


--
-- PostgreSQL database dump complete
--



\unrestrict KEY
