-- Shields (docs/shields.md): per website, the countries whose visitors count nowhere, the page
-- patterns (goals' syntax) whose hits count nowhere, and the hostnames hits may come from (NULL:
-- any). One entry per line, as the website rules write them; the collector holds them in its
-- settings cache with the exclusions, so no hit reads them from here.
ALTER TABLE websites
    ADD COLUMN block_countries text,
    ADD COLUMN block_pages text,
    ADD COLUMN allowed_hostnames text;
