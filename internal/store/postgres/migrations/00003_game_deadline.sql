-- +goose Up
-- The instant a game going on ends by its clock unless its side to move
-- moves (games.Clock.Deadline); NULL without a time control and once the
-- game is over. Every replica asks for the games due every ~100 ms, so
-- the index holds only the rows that have one.
--
-- The record keeps the deadline in nanoseconds; this column has
-- microseconds, so the store rounds it UP to the microsecond (Go's
-- ceilMicro in postgres.go): a game is never reported due before its
-- deadline, at most 1 µs after it.
ALTER TABLE games ADD COLUMN deadline timestamptz;

-- Existing games from their records' "deadline" (RFC 3339, up to nine
-- fraction digits): the whole seconds with the zone, plus the fraction
-- rounded up to the microsecond. A plain cast would round to nearest.
UPDATE games SET deadline =
    regexp_replace(record->'clock'->>'deadline', '\.\d+', '')::timestamptz
    + ceil(rpad(coalesce(substring(record->'clock'->>'deadline' FROM '\.(\d+)'), ''), 9, '0')::bigint / 1000.0)
      * interval '1 microsecond'
WHERE NOT finished AND record->'clock'->>'deadline' IS NOT NULL;

CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;

-- +goose Down
DROP INDEX games_deadline;
ALTER TABLE games DROP COLUMN deadline;
