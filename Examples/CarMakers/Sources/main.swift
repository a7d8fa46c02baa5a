import ETLCommandLine
import CarMakersPolicy

// `car-makers` is the whole `etl` command line plus the ported `V2to3MakerPolicy`:
//   car-makers run Examples/CarMakers/v2-to-v3.json              (the Xcode mapping model)
//   car-makers run Examples/CarMakers/v2-to-v3-uniqueBy.json     (no policy: uniqueBy)
ETLCommand.main(policies: CarMakers.policies)
