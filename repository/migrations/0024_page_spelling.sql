-- Pages in one spelling (docs/page-spelling.md): a browser sends /%C3%BCber-uns, an
-- import may hold /über-uns; both are now stored as /über-uns, and the rows written before are
-- respelled here and merged into that one row (their counts summed). page_spelling is the SQL
-- twin of stats.PagePath (Go), kept equal by TestPageSpellingTwins:
-- - an escape of an unreserved ASCII character (letters, digits, - . _ ~) is decoded;
-- - any other escaped ASCII byte stays escaped, hex in upper case;
-- - the escapes of one valid UTF-8 sequence are decoded unless the character is hidden (prints
--   as nothing or blank, or reorders text); otherwise the first escape stays, upper-cased;
-- - a % that starts no escape becomes %25; everything else is left as it is.
CREATE OR REPLACE FUNCTION page_spelling(s text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out  text := '';
    i    int := 1;
    n    int := length(s);
    b    int;
    c    int;
    need int;
    k    int;
    j    int;
    cp   int;
BEGIN
    IF strpos(s, '%') = 0 THEN
        RETURN s;
    END IF;
    WHILE i <= n LOOP
        IF substr(s, i, 1) <> '%' THEN
            out := out || substr(s, i, 1);
            i := i + 1;
            CONTINUE;
        END IF;
        IF substr(s, i + 1, 2) !~ '^[0-9A-Fa-f]{2}$' THEN
            out := out || '%25';
            i := i + 1;
            CONTINUE;
        END IF;
        b := get_byte(decode(substr(s, i + 1, 2), 'hex'), 0);
        IF b < 128 THEN
            IF b BETWEEN 48 AND 57 OR b BETWEEN 65 AND 90 OR b BETWEEN 97 AND 122 OR b IN (45, 46, 95, 126) THEN
                out := out || chr(b);
            ELSE
                out := out || '%' || upper(substr(s, i + 1, 2));
            END IF;
            i := i + 3;
            CONTINUE;
        END IF;
        need := CASE WHEN b BETWEEN 194 AND 223 THEN 1 WHEN b BETWEEN 224 AND 239 THEN 2
                     WHEN b BETWEEN 240 AND 244 THEN 3 ELSE -1 END;
        cp := CASE need WHEN 1 THEN b & 31 WHEN 2 THEN b & 15 WHEN 3 THEN b & 7 ELSE 0 END;
        j := i + 3;
        k := 0;
        WHILE need > 0 AND k < need LOOP
            IF substr(s, j, 1) <> '%' OR substr(s, j + 1, 2) !~ '^[0-9A-Fa-f]{2}$' THEN
                need := -1;
                EXIT;
            END IF;
            c := get_byte(decode(substr(s, j + 1, 2), 'hex'), 0);
            IF c < 128 OR c > 191 THEN
                need := -1;
                EXIT;
            END IF;
            cp := cp * 64 + (c & 63);
            j := j + 3;
            k := k + 1;
        END LOOP;
        IF need > 0
            AND NOT (need = 2 AND cp < 2048) AND NOT (need = 3 AND (cp < 65536 OR cp > 1114111))
            AND NOT cp BETWEEN 55296 AND 57343
            AND NOT (cp BETWEEN 128 AND 160 OR cp IN (173, 1564, 4447, 4448, 6068, 6069, 6158, 12288, 12644, 65279, 65440)
                OR cp BETWEEN 8192 AND 8207 OR cp BETWEEN 8232 AND 8239 OR cp BETWEEN 8287 AND 8303
                OR cp BETWEEN 65520 AND 65535 OR cp BETWEEN 917504 AND 917631) THEN
            out := out || chr(cp);
            i := j;
        ELSE
            out := out || '%' || upper(substr(s, i + 1, 2));
            i := i + 3;
        END IF;
    END LOOP;
    RETURN out;
END
$$;

-- Writers of an older version (a rolling upgrade) wait until the rows are respelled.
LOCK TABLE stats, stats_weekly, stats_monthly IN SHARE ROW EXCLUSIVE MODE;

CREATE TEMPORARY TABLE respelled_days (website_id bigint, name text, date date) ON COMMIT DROP;

WITH moved AS (
    DELETE FROM stats
    WHERE name IN ('page', 'landing_page', 'exit_page') AND strpos(value, '%') > 0 AND page_spelling(value) <> value
    RETURNING website_id, name, date, page_spelling(value) AS value, count
), merged AS (
    INSERT INTO stats AS s (website_id, name, date, value, count)
    SELECT website_id, name, date, value, sum(count) FROM moved GROUP BY 1, 2, 3, 4
    ON CONFLICT (website_id, name, date, value) DO UPDATE SET count = s.count + EXCLUDED.count
)
INSERT INTO respelled_days SELECT DISTINCT website_id, name, date FROM moved;

-- Two spellings merged into one row make one value less on that day.
UPDATE stats_value_counts c
SET value_count = (SELECT count(*) FROM stats s
    WHERE s.website_id = c.website_id AND s.name = c.name AND s.date = c.date AND s.value <> '(other)')
FROM respelled_days d
WHERE c.website_id = d.website_id AND c.name = d.name AND c.date = d.date;

WITH moved AS (
    DELETE FROM stats_weekly
    WHERE name IN ('page', 'landing_page', 'exit_page') AND strpos(value, '%') > 0 AND page_spelling(value) <> value
    RETURNING website_id, name, week, page_spelling(value) AS value, count
)
INSERT INTO stats_weekly AS s (website_id, name, week, value, count)
SELECT website_id, name, week, value, sum(count) FROM moved GROUP BY 1, 2, 3, 4
ON CONFLICT (website_id, name, week, value) DO UPDATE SET count = s.count + EXCLUDED.count;

WITH moved AS (
    DELETE FROM stats_monthly
    WHERE name IN ('page', 'landing_page', 'exit_page') AND strpos(value, '%') > 0 AND page_spelling(value) <> value
    RETURNING website_id, name, month, page_spelling(value) AS value, count
)
INSERT INTO stats_monthly AS s (website_id, name, month, value, count)
SELECT website_id, name, month, value, sum(count) FROM moved GROUP BY 1, 2, 3, 4
ON CONFLICT (website_id, name, month, value) DO UPDATE SET count = s.count + EXCLUDED.count;

-- The visits' rows, so that a filter on a page finds the days before this migration too.
UPDATE visit_rows
SET landing_page = page_spelling(landing_page),
    exit_page = page_spelling(exit_page),
    pages = ARRAY(SELECT page_spelling(p) FROM unnest(pages) WITH ORDINALITY AS u (p, o) ORDER BY o)
WHERE strpos(landing_page, '%') > 0 OR strpos(exit_page, '%') > 0 OR strpos(array_to_string(pages, ' '), '%') > 0;
