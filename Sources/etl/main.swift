print("etl")
