-- Funnels (docs/funnels.md) need the order of a visit's hits across pages and events, which
-- visit_rows kept as two separate arrays. hit_order holds one letter a hit, in order: 'p' for
-- the next element of pages, 'e' for the next of events (and event_names). A later write of a
-- row appends to it as it appends to the arrays. Rows written before this migration have ''
-- (their order is unknown): funnels count from websites.funnels_from on.
ALTER TABLE visit_rows ADD COLUMN hit_order text NOT NULL DEFAULT '';

-- The first day whose rows keep the order: the day after the upgrade for existing websites
-- (the upgrade's own day is partial), the first day of websites created later.
ALTER TABLE websites ADD COLUMN funnels_from date NOT NULL DEFAULT current_date;
UPDATE websites SET funnels_from = current_date + 1;
