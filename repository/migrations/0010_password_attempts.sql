-- Password attempts per account (sign-in) and per website (its password), kept here so that
-- the limit holds for the whole service however many nodes serve it. An attempt is counted
-- before its password is checked and taken back when it was right, so failures is the count
-- of wrong ones, less those forgiven with time; charged_at is when the last was counted. The
-- target is an HMAC (signing key "attempts") of the account's e-mail or the website's id: no
-- e-mail, address or password is stored, and unknown e-mails are counted like known ones.
CREATE TABLE password_attempts (
    target     bytea PRIMARY KEY CHECK (octet_length(target) = 32),
    failures   integer NOT NULL CHECK (failures >= 0),
    charged_at timestamptz NOT NULL
);
