// Page Colour's preprocessing file, as Apple's "Accessing a Webpage" has it: run hands the
// extension the page's base URI, and finalize paints the page in the colour the extension
// sends back.
var Action = function() {};

Action.prototype = {
    run: function(arguments) {
        arguments.completionFunction({ "baseURI": document.baseURI });
    },

    finalize: function(arguments) {
        document.body.style.backgroundColor = arguments["bgColor"];
    }
};

var ExtensionPreprocessingJS = new Action;
