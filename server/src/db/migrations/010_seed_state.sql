-- The seed's completion marker (issue 8): written LAST, in the transaction that finishes the seed.
-- A database without it was never seeded, or its first start was killed half-way; the service then
-- rebuilds the seed (seed/index.ts). Databases seeded before this marker existed count as complete
-- when their last seed step (the demo account) is there.
CREATE TABLE seed_state (
  id integer PRIMARY KEY CHECK (id = 1),
  version integer NOT NULL,
  companies integer NOT NULL,
  completed_at timestamptz NOT NULL
);
INSERT INTO seed_state (id, version, companies, completed_at)
SELECT 1, 1, (SELECT count(*)::int FROM companies), now()
WHERE EXISTS (SELECT 1 FROM users WHERE email = 'demo@example.com');
