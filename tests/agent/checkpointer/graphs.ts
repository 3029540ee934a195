// Two tiny graphs for the checkpointer tests; no model, so the only state is what the saver keeps.
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

/** One node that appends "<label> #<n>", n counting the messages already in the thread. */
export function appendGraph(checkpointer: BaseCheckpointSaver, label: string) {
  return new StateGraph(MessagesAnnotation)
    .addNode('append', (state) => ({ messages: [new AIMessage(`${label} #${state.messages.length}`)] }))
    .addEdge(START, 'append')
    .addEdge('append', END)
    .compile({ checkpointer });
}

/** Asks a question with interrupt(), then records the answer it was resumed with. */
export function approvalGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('ask', () => {
      const answer = interrupt<{ question: string }, { approved: boolean; by: string }>({ question: 'delete /tmp/x?' });
      return { messages: [new AIMessage(`approved=${answer.approved} by ${answer.by}`)] };
    })
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer });
}

export const texts = (messages: BaseMessage[]): string[] => messages.map((message) => String(message.content));
