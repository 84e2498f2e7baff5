"""The game and table documents (shared/docs/game-json.md, tables.md), the same
game as CSV, and a table's stats: pure Python, read and written from plain data."""
