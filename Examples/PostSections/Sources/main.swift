import Foundation
import ETLCommandLine
import PostSectionsPolicy

// `post-sections` is the whole `etl` command line plus the `addSection` policy.
// `post-sections make-sample FILE [N]` writes a v2 store of N posts to try it on.
let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1] == "make-sample" {
    do {
        try PostSections.writeSample(to: arguments[2], count: arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100)
        print("wrote \(arguments[2])")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
ETLCommand.main(policies: PostSections.policies)
