-- +goose Up
-- CreateGame request ids, so a retried CreateGame on any replica returns
-- the first game and tokens instead of creating another. The key is a
-- digest of the client's id (games.LookupKey), never the id itself, and
-- the record holds the tokens only sealed under a key derived from the
-- id: this table alone cannot give the tokens back. A row lives as long
-- as its game. Moves, resignations and draw offers and answers keep
-- their request ids in move_requests, per game.
CREATE TABLE create_requests (
    request_key  text  PRIMARY KEY,
    game_id      text  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    record       jsonb NOT NULL
);
CREATE INDEX create_requests_game ON create_requests (game_id);

-- +goose Down
DROP TABLE create_requests;
