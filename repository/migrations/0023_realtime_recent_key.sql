-- Every primary key of a table holding a website's data includes website_id, so that the
-- tables can be sharded by website (docs/scaling.md). realtime_recent's was its id alone.
ALTER TABLE realtime_recent DROP CONSTRAINT realtime_recent_pkey;
ALTER TABLE realtime_recent ADD PRIMARY KEY (website_id, id);
