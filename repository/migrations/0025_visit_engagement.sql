-- Time on page and scroll depth kept with the visit row, so that filtered page lists have them
-- (docs/tracker.md). Three arrays aligned with one another, one element per page the visit sent
-- engagement for (not per pageview: a visit counts once per page however often it came back):
-- the page as the page statistic counts it, the visit's engaged milliseconds on it and its
-- deepest scroll depth on it (0..100); an element is NULL when the visit sent none of that kind
-- for the page. Each write of a row that carries engagement replaces all three with the visit's
-- totals as they are then. NULL (no element at all) for a visit that sent no engagement, and for
-- every row written before this migration: such rows take no space and count in no mean.
ALTER TABLE visit_rows
    ADD COLUMN engaged_pages text[],
    ADD COLUMN engaged_ms    integer[],
    ADD COLUMN scroll_depth  smallint[];
