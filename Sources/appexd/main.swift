print("appexd")
