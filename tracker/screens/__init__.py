"""What the screens show, laid out as plain data from the engine's state: the
scoreboard, the charts (SVG), the QR codes and the hand calculator's page."""
