-- +goose Up
-- A page of games going on (or over) is an index range from the page's
-- start, whatever the number of games with the other status before it:
-- ListGames filtered by status, and every replica's walk over the games
-- going on.
CREATE INDEX games_status ON games (finished, id);

-- +goose Down
DROP INDEX games_status;
