-- The counters summed per week, Monday to Sunday (week = its Monday). A range reads whole
-- months from stats_monthly, whole weeks of what is left from here, and only the remaining days
-- from stats: the last 30 days read three or four weeks and at most twelve days instead of
-- thirty days. Every write to stats adds to this table in the same statement.
CREATE TABLE stats_weekly (
    website_id bigint NOT NULL,
    name       text NOT NULL,
    week       date NOT NULL CHECK (extract(isodow FROM week) = 1),
    value      text COLLATE "C" NOT NULL,
    count      bigint NOT NULL CHECK (count > 0),
    PRIMARY KEY (website_id, name, week, value)
);

INSERT INTO stats_weekly (website_id, name, week, value, count)
SELECT website_id, name, date_trunc('week', date)::date, value, sum(count)
FROM stats
GROUP BY 1, 2, 3, 4;
