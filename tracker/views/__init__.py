"""The pages, as thin function views: each loads the game or table, hands a
change to the model and the engine, and renders (README, "Layout")."""
