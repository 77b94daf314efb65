\restrict KEY

-- dumpshard-target: yugabytedb:2024.2
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

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: animals animals_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: arrays arrays_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: blobs blobs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: customer_notes customer_notes_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: customer customer_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: docs docs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: dropped dropped_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: empty_table empty_table_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events_2023 events_2023_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events_2024 events_2024_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: events_default events_default_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: gen_parted gen_parted_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


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

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen gen_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: größe größe_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: ident ident_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: misc_types misc_types_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: moods moods_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: my.table name my.table name_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: numbers numbers_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: pairs pairs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: select select_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: texts texts_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: times times_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: items items_pkey; Type: CONSTRAINT; Schema: sales; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


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

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_2023_pkey;


--
-- Name: events_2024_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_2024_pkey;


--
-- Name: events_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_default_pkey;


--
-- Name: gen_parted_high_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


--
-- Name: gen_parted_low_pkey; Type: INDEX ATTACH; Schema: public; Owner: postgres
--

-- pgdump2csv: statement dropped (rule goes-with-left-out)


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
