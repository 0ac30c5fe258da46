package toy

import "encoding/json"

var jsonMarshal = json.Marshal
