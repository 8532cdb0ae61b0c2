print("appex")
