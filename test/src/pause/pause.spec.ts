import { embeddedBroker } from '../support/fixtures';
import { describeScenarios } from '../support/scenarios';
import { PAUSE_SCENARIOS } from './pause.scenarios';

// The long polls the embedded broker holds at the pause deliver what is sent after it (4 of 8 were handled while
// paused before pause() held dispatch): handler calls are counted, not pulls.
describeScenarios('pause', PAUSE_SCENARIOS, embeddedBroker());
