-- Users and their API keys. Only a SHA-256 of each key is stored: a leaked table gives no key.
CREATE TABLE users (
    id         bigserial PRIMARY KEY,
    email      text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id         bigserial PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key_hash   bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- domain is unique across users because the tracker finds a website by its host alone.
CREATE TABLE websites (
    id             bigserial PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    domain         text COLLATE "C" NOT NULL UNIQUE,
    privacy        smallint NOT NULL CHECK (privacy IN (0, 1, 2)),
    password_hash  text,
    email          smallint NOT NULL CHECK (email IN (0, 1)),
    exclude_bots   smallint NOT NULL CHECK (exclude_bots IN (0, 1)),
    exclude_params text,
    exclude_ips    text,
    favorite       boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

CREATE INDEX websites_user_id_id ON websites (user_id, id);

-- Pre-aggregated daily counters: one row per website, statistic, day and value. No raw hit is
-- ever stored. website_id leads every key so the table can be distributed by it (Citus).
-- value is "C"-collated so sorting by value is byte order, the same on every server.
CREATE TABLE stats (
    website_id bigint NOT NULL,
    name       text NOT NULL,
    date       date NOT NULL,
    value      text COLLATE "C" NOT NULL,
    count      bigint NOT NULL CHECK (count > 0),
    PRIMARY KEY (website_id, name, date, value)
);

-- The same counters summed per calendar month (month = its first day). Long ranges read whole
-- months here and only the partial months at the edges from stats; every write to stats adds to
-- this table in the same statement, so the two never disagree.
CREATE TABLE stats_monthly (
    website_id bigint NOT NULL,
    name       text NOT NULL,
    month      date NOT NULL CHECK (extract(day FROM month) = 1),
    value      text COLLATE "C" NOT NULL,
    count      bigint NOT NULL CHECK (count > 0),
    PRIMARY KEY (website_id, name, month, value)
);
