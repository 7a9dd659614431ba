-- Sources, UTM tags and channels (docs/sources.md): visit-level names counted from the upgrade
-- on, each with its column of visit_rows for filters. campaign (utm_campaign) had both already.
ALTER TABLE visit_rows
    ADD COLUMN source      text NOT NULL DEFAULT '',
    ADD COLUMN channel     text NOT NULL DEFAULT '',
    ADD COLUMN utm_source  text NOT NULL DEFAULT '',
    ADD COLUMN utm_medium  text NOT NULL DEFAULT '',
    ADD COLUMN utm_term    text NOT NULL DEFAULT '',
    ADD COLUMN utm_content text NOT NULL DEFAULT '';

-- The first day counted with those names: the day after the upgrade for existing websites (the
-- upgrade's own day is partial), the first day of websites created later. The dashboard says
-- so for a range that starts earlier.
ALTER TABLE websites ADD COLUMN sources_from date NOT NULL DEFAULT current_date;
UPDATE websites SET sources_from = current_date + 1;
