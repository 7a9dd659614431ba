-- phpAnalytics' schema as of its v31 migration (lunatiofree/phpAnalytics, database/migrations),
-- written for the import's tests: only the tables the import reads, plus recents. The stats
-- and settings tables are those its migrations create and alter (the stats.name enum as
-- v3_7_0 leaves it). users and websites predate its migrations (its installer creates them);
-- their columns are those the migrations add or rename (websites.url -> domain in v3_2_0,
-- favorited_at in v29, users.avatar in v31, the plan_* and tfa_* columns) and those its models,
-- its WebsiteResource and its tracking endpoint read (privacy, password, email, exclude_bots,
-- exclude_params, exclude_ips, users.can_track, users.deleted_at of SoftDeletes), with Laravel's
-- column types.

CREATE TABLE users (
  id int unsigned NOT NULL AUTO_INCREMENT,
  name varchar(255) NOT NULL,
  email varchar(255) NOT NULL,
  email_verified_at timestamp NULL DEFAULT NULL,
  password varchar(255) DEFAULT NULL,
  avatar varchar(48) DEFAULT '',
  role int NOT NULL DEFAULT 0,
  plan_id int unsigned NOT NULL DEFAULT 1,
  plan_amount varchar(32) DEFAULT NULL,
  plan_currency varchar(12) DEFAULT NULL,
  plan_interval varchar(16) DEFAULT NULL,
  plan_payment_processor varchar(32) DEFAULT NULL,
  plan_subscription_id varchar(128) DEFAULT NULL,
  plan_subscription_status varchar(32) DEFAULT NULL,
  plan_created_at timestamp NULL DEFAULT NULL,
  plan_recurring_at timestamp NULL DEFAULT NULL,
  plan_trial_ends_at timestamp NULL DEFAULT NULL,
  plan_ends_at timestamp NULL DEFAULT NULL,
  billing_information text,
  tfa smallint DEFAULT NULL,
  tfa_code varchar(255) DEFAULT NULL,
  tfa_code_created_at timestamp NULL DEFAULT NULL,
  locale varchar(64) DEFAULT NULL,
  timezone varchar(64) DEFAULT NULL,
  api_token varchar(80) DEFAULT NULL,
  can_track tinyint NOT NULL DEFAULT 1,
  remember_token varchar(100) DEFAULT NULL,
  created_at timestamp NULL DEFAULT NULL,
  updated_at timestamp NULL DEFAULT NULL,
  deleted_at timestamp NULL DEFAULT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY email (email),
  KEY plan_id (plan_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE websites (
  id int unsigned NOT NULL AUTO_INCREMENT,
  user_id int unsigned NOT NULL,
  domain varchar(255) NOT NULL,
  privacy tinyint NOT NULL DEFAULT 0,
  password text,
  email tinyint NOT NULL DEFAULT 0,
  exclude_bots tinyint NOT NULL DEFAULT 1,
  exclude_params text,
  exclude_ips text,
  favorited_at timestamp NULL DEFAULT NULL,
  created_at timestamp NULL DEFAULT NULL,
  updated_at timestamp NULL DEFAULT NULL,
  PRIMARY KEY (id),
  KEY user_id (user_id),
  KEY domain (domain),
  KEY email (email)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE stats (
  website_id int NOT NULL,
  name enum('browser','os','device','visitors','pageviews','country','city','page','referrer','resolution','language','landing_page','event','campaign','continent','visitors_hour','pageviews_hour') NOT NULL,
  value varchar(255) NOT NULL,
  count bigint NOT NULL DEFAULT 1,
  date date NOT NULL,
  PRIMARY KEY (website_id, name, value, date)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE recents (
  id bigint unsigned NOT NULL AUTO_INCREMENT,
  website_id int NOT NULL,
  page varchar(255) DEFAULT NULL,
  referrer varchar(255) DEFAULT NULL,
  os varchar(64) DEFAULT NULL,
  browser varchar(64) DEFAULT NULL,
  device varchar(64) DEFAULT NULL,
  country varchar(64) DEFAULT NULL,
  city varchar(128) DEFAULT NULL,
  language varchar(64) DEFAULT NULL,
  created_at timestamp NULL DEFAULT NULL,
  PRIMARY KEY (id),
  KEY website_id (website_id),
  KEY created_at (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE settings (
  name varchar(128) NOT NULL,
  value text,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

INSERT INTO settings (name, value) VALUES ('timezone', 'UTC'), ('title', 'phpAnalytics');
