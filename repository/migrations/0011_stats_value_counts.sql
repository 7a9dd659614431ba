-- How many distinct values the daily table holds per website, statistic and day, `(other)` not
-- included: what the flush (AddStats) reads to keep each day under MAX_VALUES_PER_DAY values
-- without counting a day's rows on every write. The flush adds to it, in the same statement,
-- the rows it inserted; DeleteWebsite deletes a website's rows with its stats. One row per
-- website, statistic and day: a few hundred rows a day for twenty busy websites.
--
-- Updated by the flush every second for the days being written, hence the room left on each
-- page (HOT updates), as on stats (0008).
CREATE TABLE stats_value_counts (
    website_id  bigint NOT NULL,
    name        text NOT NULL,
    date        date NOT NULL,
    value_count integer NOT NULL CHECK (value_count >= 0),
    PRIMARY KEY (website_id, name, date)
) WITH (fillfactor = 70);

-- Writers of an older version (a rolling upgrade) wait until the counts are taken; after that,
-- the values they add go uncounted until they stop.
LOCK TABLE stats IN SHARE MODE;

INSERT INTO stats_value_counts (website_id, name, date, value_count)
SELECT website_id, name, date, count(*) FILTER (WHERE value <> '(other)')
FROM stats
GROUP BY 1, 2, 3;
