1	2
2 	 3 extra
