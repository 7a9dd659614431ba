-- Stats rows of websites that no longer exist: a stats flush racing a website delete could
-- leave some before AddStats locked the websites it writes for (FOR KEY SHARE). Ids are never
-- reused, so the rows were unreachable; removed once here.
DELETE FROM stats s WHERE NOT EXISTS (SELECT 1 FROM websites w WHERE w.id = s.website_id);
DELETE FROM stats_monthly m WHERE NOT EXISTS (SELECT 1 FROM websites w WHERE w.id = m.website_id);
