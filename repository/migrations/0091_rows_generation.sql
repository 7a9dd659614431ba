-- A website's rows_generation grows with every deletion of its visit rows (a stats reset,
-- retention): the column store's copies of its days record the generation they were copied
-- at, and a read ignores a copy of an older one (docs/engine.md).
ALTER TABLE websites ADD COLUMN rows_generation bigint NOT NULL DEFAULT 0;
