-- +goose Up
CREATE TABLE games (
    id          text        PRIMARY KEY,
    version     bigint      NOT NULL,
    last_event  bigint      NOT NULL,
    finished    boolean     NOT NULL,
    record      jsonb       NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

-- One row per event; (game_id, seq) makes a sequence number unique per game.
CREATE TABLE game_events (
    game_id  text   NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq      bigint NOT NULL,
    record   jsonb  NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- Client request ids of moves, so a retry on any replica plays nothing twice.
CREATE TABLE move_requests (
    game_id     text  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    request_id  text  NOT NULL,
    record      jsonb NOT NULL,
    PRIMARY KEY (game_id, request_id)
);

-- +goose Down
DROP TABLE move_requests;
DROP TABLE game_events;
DROP TABLE games;
