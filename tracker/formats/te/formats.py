# "3 <month> 2026". "E" is the month's name in the form Django's catalogue
# gives a long date; its Hindi is spelt right where "F"'s is not (दिसंबर, not
# दिसमबर) and its Telugu is the usual spelling (ఏప్రిల్, జూలై, ఆగస్ట్).
DATE_FORMAT = "j E Y"
