
-- dumpshard-target: yugabytedb:2026.1
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
-- Name: customers_id_seq; Type: SEQUENCE SET; Schema: shop; Owner: postgres
--

SELECT pg_catalog.setval('shop.customers_id_seq', 600, true);


--
-- Name: customers customers_email_key; Type: CONSTRAINT; Schema: shop; Owner: postgres
--

ALTER TABLE ONLY shop.customers
    ADD CONSTRAINT customers_email_key UNIQUE (email);


--
-- Name: customers customers_pkey; Type: CONSTRAINT; Schema: shop; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: order_lines order_lines_pkey; Type: CONSTRAINT; Schema: shop; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: shop; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: products products_pkey; Type: CONSTRAINT; Schema: shop; Owner: postgres
--

-- pgdump2csv: statement dropped (rule yb-pk-moved)


--
-- Name: orders_customer_id_idx; Type: INDEX; Schema: shop; Owner: postgres
--

CREATE INDEX orders_customer_id_idx ON shop.orders USING btree (customer_id);


--
-- Name: orders_ordered_at_idx; Type: INDEX; Schema: shop; Owner: postgres
--

CREATE INDEX orders_ordered_at_idx ON shop.orders USING btree (ordered_at);


--
-- Name: order_lines order_lines_order_id_fkey; Type: FK CONSTRAINT; Schema: shop; Owner: postgres
--

ALTER TABLE ONLY shop.order_lines
    ADD CONSTRAINT order_lines_order_id_fkey FOREIGN KEY (order_id) REFERENCES shop.orders(id) ON DELETE CASCADE;


--
-- Name: order_lines order_lines_sku_fkey; Type: FK CONSTRAINT; Schema: shop; Owner: postgres
--

ALTER TABLE ONLY shop.order_lines
    ADD CONSTRAINT order_lines_sku_fkey FOREIGN KEY (sku) REFERENCES shop.products(sku);


--
-- Name: orders orders_customer_id_fkey; Type: FK CONSTRAINT; Schema: shop; Owner: postgres
--

ALTER TABLE ONLY shop.orders
    ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES shop.customers(id);


--
-- PostgreSQL database dump complete
--



