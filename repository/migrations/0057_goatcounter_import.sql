-- Days imported from a GoatCounter CSV export (docs/imports.md) are marked as such, beside
-- phpAnalytics' and Plausible's.
ALTER TABLE imported_days DROP CONSTRAINT imported_days_source_check;
ALTER TABLE imported_days ADD CONSTRAINT imported_days_source_check
    CHECK (source IN ('phpanalytics', 'plausible', 'goatcounter'));
