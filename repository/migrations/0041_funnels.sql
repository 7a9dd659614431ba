-- Funnels (docs/funnels.md): a name and 2 to 8 of the website's goals in order. A definition
-- only: its numbers are counted from visit_rows when read. At most 50 a website (checked
-- under a lock of the website's row when one is added). Deleting a goal deletes its steps
-- (the funnel's other steps keep their order); the deletion also removes the funnels left
-- with fewer than 2 steps, in the same transaction (repository DeleteGoal).
CREATE TABLE funnels (
    website_id bigint      NOT NULL REFERENCES websites (id) ON DELETE CASCADE,
    id         bigserial   NOT NULL,
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (website_id, id),
    UNIQUE (website_id, name)
);

CREATE TABLE funnel_steps (
    website_id bigint   NOT NULL,
    funnel_id  bigint   NOT NULL,
    position   smallint NOT NULL CHECK (position BETWEEN 1 AND 8),
    goal_id    bigint   NOT NULL,
    PRIMARY KEY (website_id, funnel_id, position),
    UNIQUE (website_id, funnel_id, goal_id),
    FOREIGN KEY (website_id, funnel_id) REFERENCES funnels (website_id, id) ON DELETE CASCADE,
    FOREIGN KEY (website_id, goal_id) REFERENCES goals (website_id, id) ON DELETE CASCADE
);
-- Finds the funnels of a goal that is deleted.
CREATE INDEX funnel_steps_goal ON funnel_steps (website_id, goal_id);
